# eqprof-completion.bash - bash completion for eqprof (docs/guide.md,
# "Shell completion").  Every word comes from eqprof itself: the commands
# from `eqprof --list-cmds`, a command's options and what their values can
# be from `eqprof COMMAND --list-opts` (its option table), so completion
# never disagrees with what the command accepts.  A value is completed
# after the option ("--format c") and attached ("--format=c"); a value that
# may only be attached (--call-graph[=callee|caller]) only so.
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
	# --name=VALUE: bash splits the word at '=' (COMP_WORDBREAKS), so the
	# value is completed after "--name" "=" (cur "=" when nothing follows)
	local opt=
	if [ "$cur" = "=" ] && [ -n "${kinds[$prev]}" ]; then
		opt=$prev
		cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 3 ]; then
		opt=${COMP_WORDS[COMP_CWORD-2]}
		[ -n "${kinds[$opt]}" ] || opt=
	fi
	# the option before the cursor, whose value the next word is: not one
	# whose value may only be attached ("[=]": --call-graph[=callee|caller])
	if [ -z "$opt" ] && [ -n "${kinds[$prev]}" ] && [[ ${kinds[$prev]} != "[=]"* ]]; then
		opt=$prev
	fi
	if [ -n "$opt" ]; then
		kind=${kinds[$opt]#\[[= ]\]}
		case $kind in
		@file) COMPREPLY=($(compgen -f -- "$cur")) ;;
		@dir)  COMPREPLY=($(compgen -d -- "$cur")) ;;
		=)     ;;
		*)     COMPREPLY=($(compgen -W "$kind" -- "$cur")) ;;
		esac
		# an optional value may be left out ("[ ]": -t [HZ] COMMAND):
		# what else could come next, too
		[[ ${kinds[$opt]} == "[ ]"* && $prev == "$opt" ]] || return
		[ ${#COMPREPLY[@]} -eq 0 ] || return
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
