#!/usr/bin/env python3
"""options.py - walks every command's option table (host/parse-options.c,
issue 29 item 1) through what the table writes: `eqprof CMD --help` (the
usage text) and `eqprof CMD --list-opts` (what the bash completion reads).

For every command, every mode of one (power --by proc, report --attribute
async, record --target cortexm) and every board subcommand:
  - --help exits 0, says nothing on stderr and starts "usage: eqprof CMD";
  - the options --help documents are exactly the options the parser lists
    (every option accepted is documented, every one documented accepted);
  - every listed option is accepted: given (with a value when it takes one)
    before --help, it is never "unknown", and a value it refuses gives an
    error that names the option;
  - -q and -v are among them;
  - a misspelt long option is one line naming it with "did you mean" the
    right option, then the line pointing at --help, exit 2;
  - the bash completion (host/eqprof-completion.bash) offers exactly the
    listed long options after "--", and the listed words for a value, given
    as the next word or attached (--name=); a value that may only be
    attached (--call-graph[=callee|caller]) only attached;
  - an option whose --help shows its value as optional ("--x[=V]", "-t
    [HZ]") is listed so ("[=]" or "[ ]" before what completes it);
  - each option's help starts at the help column: on its line, or on the
    next one when the option is too wide (never pushed along its line).
The expected sets come from the table itself (--list-opts) and are checked
against the text a user reads (--help) and the completion bash runs: three
outputs that must agree, none of them hard-coded here."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True   # leave no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ.get("SRC", "."), "test", "analysis"))
from eqtest import EQPROF, SRC, Tap, eqprof

COMPLETION = os.path.join(SRC, "host", "eqprof-completion.bash")


def list_opts(words):
    """{name: kind} from eqprof WORDS --list-opts."""
    rc, out, err = eqprof(*(words + ["--list-opts"]))
    if rc != 0:
        raise RuntimeError("%s --list-opts: exit %d: %s" % (" ".join(words), rc, err))
    opts = {}
    for line in out.splitlines():
        name, _, kind = line.partition("\t")
        opts[name] = kind
    return opts


HELP_NAME = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)")


def documented(help_text):
    """The option names --help lists: the left column of its option lines."""
    names = set()
    for line in help_text.splitlines():
        if not re.match(r"  -", line):
            continue
        left = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        for name in HELP_NAME.findall(left):
            # the value's name ("--vcomp on|off") is not an option
            if name.startswith("-"):
                names.add(name)
    return names


def modes_of(cmd, help_text, opts):
    """The mode words of cmd from its synopsis: "eqprof CMD --opt WORD ..."
    where --opt completes to WORD; board's "eqprof board SUBCOMMAND"."""
    modes = []
    for line in help_text.splitlines():
        m = re.match(r"(?:usage:)?\s+eqprof %s (\S+)(?: (\S+))?" % re.escape(cmd), line)
        if not m:
            if not line.strip():
                break
            continue
        first, second = m.group(1), m.group(2)
        if cmd == "board" and not first.startswith("-"):
            modes.append([first])
        elif first in opts and second and second in opts[first].split():
            modes.append([first, second])
    return modes


def complete(line_words, path):
    """COMPREPLY of _eqprof with the cursor on the last of line_words."""
    script = ('. "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; _eqprof; printf "%%s\\n" "${COMPREPLY[@]}"'
              % (COMPLETION, " ".join("'%s'" % w for w in line_words), len(line_words) - 1))
    p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=dict(os.environ, PATH=path))
    return set(w for w in p.stdout.splitlines() if w), p.stderr


def typo(name):
    """--name with an 'x' put in after its second letter: one edit away."""
    body = name[2:]
    return "--" + body[:2] + "x" + body[2:]


def optional(kind):
    """("[=]" or "[ ]" or "", what completes the value) of a listed kind."""
    if kind[:3] in ("[=]", "[ ]"):
        return kind[:3], kind[3:]
    return "", kind


def check_accepted(t, words, opts):
    """Each listed option, given before --help, is taken."""
    bad = []
    for name, kind in sorted(opts.items()):
        if name == "--help":
            continue
        args = [name]
        opt, kind = optional(kind)
        if opt == "[=]" and kind and kind != "=" and not kind.startswith("@"):
            # an attached value: --name=V, -xV
            args = [name + ("=" if name.startswith("--") else "") + kind.split()[0]]
        elif opt:
            pass        # left out
        elif kind and kind != "=":
            value = "x" if kind.startswith("@") else kind.split()[0]
            args.append(value)
        elif kind == "=":
            args.append("1")
        rc, out, err = eqprof(*(words + args + ["--help"]))
        first = err.splitlines()[0] if err else ""
        if rc == 0 and out.startswith("usage: eqprof"):
            continue
        if (rc == 2 and "unknown option" not in first and "ambiguous" not in first and
                name in first):
            continue    # a value refused, by a message naming the option
        bad.append("%s -> %d %s" % (" ".join(args), rc, first))
    t.ok(not bad, "%s: every listed option (%d) is accepted" % (" ".join(words), len(opts) - 1),
         "\n".join(bad))


def check_typos(t, words, opts):
    cmd = words[0]
    bad = []
    n = 0
    for name in sorted(opts):
        if not name.startswith("--") or len(name) < 6 or name in ("--help", "--list-opts"):
            continue
        wrong = typo(name)
        if any(o.startswith(wrong) for o in opts):
            continue
        n += 1
        rc, out, err = eqprof(*(words + [wrong]))
        lines = err.splitlines()
        want = "eqprof %s: unknown option '%s'; did you mean %s?" % (cmd, wrong, name)
        if not (rc == 2 and len(lines) == 2 and lines[0] == want and "--help" in lines[1]
                and not out):
            bad.append("%s: exit %d, stderr %r" % (wrong, rc, err))
    t.ok(not bad and n > 0, "%s: %d misspelt options: one line with 'did you mean', "
         "one pointing at --help, exit 2" % (" ".join(words), n), "\n".join(bad))


def check_completion(t, words, opts, path):
    longs = set(o for o in opts if o.startswith("--"))
    got, err = complete(["eqprof"] + words + ["--"], path)
    t.ok(got == longs and not err, "%s: completion after -- offers the listed long options"
         % " ".join(words), "missing %s\nextra %s\n%s" % (sorted(longs - got), sorted(got - longs), err))
    bad = []
    for name, kind in sorted(opts.items()):
        opt, kind = optional(kind)
        if not name.startswith("--") or not kind or kind in ("=",) or kind.startswith("@"):
            continue
        want = set(kind.split())
        # attached: bash splits "--name=" into "--name" "=" (COMP_WORDBREAKS)
        for line in ([name, "="], [name, "=", ""]):
            got, err = complete(["eqprof"] + words + line, path)
            if got != want:
                bad.append("%s: %s, want %s %s" % ("".join(line), sorted(got), kind, err))
        got, err = complete(["eqprof"] + words + [name, ""], path)
        if opt == "[=]" and got & want:
            bad.append("%s (the next word is not its value): %s" % (name, sorted(got & want)))
        elif opt != "[=]" and got != want:
            bad.append("%s: %s, want %s %s" % (name, sorted(got), kind, err))
    t.ok(not bad, "%s: completion of each value offers the table's words" % " ".join(words),
         "\n".join(bad))


HELP_COLUMN = 20    # host/parse-options.c: where every option's help starts


def check_help_layout(t, words, help_text, opts):
    """Optional values listed as --help shows them; the help at its column."""
    bad = []
    lines = help_text.splitlines()
    for i, line in enumerate(lines):
        if not re.match(r"  -", line):
            continue
        left = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        # the value as --help shows it, for the short and long names alike
        want = "[=]" if "[=" in left else "[ ]" if re.search(r"\s\[", left) else ""
        for name in HELP_NAME.findall(left):
            if name not in opts:
                continue
            if optional(opts[name])[0] != want:
                bad.append("%s: --help shows %r, --list-opts %r" % (name, left, opts[name]))
        if len(line) > len("  " + left):        # help on the option's own line
            if not (line[HELP_COLUMN - 2:HELP_COLUMN] == "  " and line[HELP_COLUMN] != " "):
                bad.append("help not at column %d: %r" % (HELP_COLUMN, line))
        elif i + 1 < len(lines) and lines[i + 1].strip():
            nxt = lines[i + 1]
            if not (nxt.startswith(" " * HELP_COLUMN) and nxt[HELP_COLUMN] != " "):
                bad.append("help not at column %d below %r: %r" % (HELP_COLUMN, line, nxt))
    t.ok(not bad, "%s --help: optional values listed as optional, every help at column %d"
         % (" ".join(words), HELP_COLUMN), "\n".join(bad))


def check_one(t, words, path):
    rc, out, err = eqprof(*(words + ["--help"]))
    t.ok(rc == 0 and not err and out.startswith("usage: eqprof %s" % words[0]),
         "%s --help: exit 0, the usage on stdout" % " ".join(words), "rc=%d err=%s" % (rc, err))
    opts = list_opts(words)
    listed = set(opts) - {"--help"}
    doc = documented(out)
    t.ok(listed == doc, "%s: --help documents exactly the options the parser takes"
         % " ".join(words), "undocumented %s\nnot accepted %s" % (sorted(listed - doc),
                                                                  sorted(doc - listed)))
    t.ok({"-q", "--quiet", "-v", "--verbose"} <= listed, "%s takes -q and -v" % " ".join(words),
         sorted(listed))
    check_accepted(t, words, opts)
    check_typos(t, words, opts)
    check_completion(t, words, opts, path)
    check_help_layout(t, words, out, opts)
    return out, opts


def main():
    t = Tap()
    with tempfile.TemporaryDirectory(prefix="eqprof-opts-") as d:
        # the completion runs "eqprof": the one under test, first on PATH
        os.symlink(os.path.abspath(EQPROF), os.path.join(d, "eqprof"))
        path = d + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
        rc, out, err = eqprof("--list-cmds")
        cmds = out.split()
        rc2, top, _ = eqprof("--help")
        in_help = re.findall(r"^  (\w+) ", top, re.M)
        t.ok(rc == 0 and rc2 == 0 and len(cmds) >= 10 and set(cmds) <= set(in_help),
             "--list-cmds: the commands eqprof --help lists (%d)" % len(cmds), out + top)
        got, err = complete(["eqprof", ""], path)
        t.ok(got == set(cmds) | {"--help", "--version"}, "completion of the command word",
             "%s %s" % (sorted(got), err))
        for cmd in cmds:
            help_text, opts = check_one(t, [cmd], path)
            for mode in modes_of(cmd, help_text, opts):
                check_one(t, [cmd] + mode, path)
            if cmd == "board":
                subs = [m[0] for m in modes_of(cmd, help_text, opts)]
                got, _ = complete(["eqprof", "board", ""], path)
                t.ok(subs and got == set(subs), "completion of board's subcommand: %s"
                     % " ".join(sorted(got)), "want %s" % subs)
        # a mode option given in the wrong mode: one line naming both
        rc, _, err = eqprof("power", "--by", "proc", "--trace", "x.png", "f.eqp")
        lines = err.splitlines()
        t.ok(rc == 2 and len(lines) == 2 and "--trace does not go with --by proc" in lines[0],
             "power --by proc --trace: one line saying they do not go together", err)
    t.done()


if __name__ == "__main__":
    main()
