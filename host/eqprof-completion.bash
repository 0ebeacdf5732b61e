# eqprof-completion.bash - bash completion for eqprof (docs/guide.md,
# "Shell completion").  Every word comes from eqprof itself: the commands
# from `eqprof --list-cmds`, a command's options and what their values can
# be from `eqprof COMMAND --list-opts` (its option table), so completion
# never disagrees with what the command accepts.
#
#   . host/eqprof-completion.bash        (or: make install puts it in
#                                          PREFIX/share/bash-completion/completions)

_eqprof()
{
	local cur prev cmd mode words line name kind
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(eqprof --list-cmds 2>/dev/null) --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	# a mode option already given (--by proc, --attribute async, --target
	# cortexm) or board's subcommand narrows the options to that mode's
	# (--list-opts first: eqprof only lists, it never runs what follows)
	words=("${COMP_WORDS[@]:2:COMP_CWORD-2}")
	local -A kinds=()
	if [ "$cmd" = board ] && [ -n "${words[0]}" ] && [[ ${words[0]} != -* ]]; then
		line=$(eqprof board "${words[0]}" --list-opts 2>/dev/null)
	else
		line=$(eqprof "$cmd" --list-opts "${words[@]}" 2>/dev/null)
	fi
	while IFS=$'\t' read -r name kind; do
		[ -n "$name" ] && kinds[$name]=$kind
	done <<<"$line"
	# the value of the option before the cursor
	if [ -n "${kinds[$prev]+set}" ] && [ -n "${kinds[$prev]}" ]; then
		case ${kinds[$prev]} in
		@file) COMPREPLY=($(compgen -f -- "$cur")) ;;
		@dir)  COMPREPLY=($(compgen -d -- "$cur")) ;;
		=)     ;;
		*)     COMPREPLY=($(compgen -W "${kinds[$prev]}" -- "$cur")) ;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${!kinds[*]}" -- "$cur"))
		return
	fi
	if [ "$cmd" = board ] && [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "list info config calibrate log" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _eqprof eqprof
