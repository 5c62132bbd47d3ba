"""The command-line grammar of programs with verbs (``kubectl``, ``aws``, ``docker``, ``npm``…):
which of their options take a value, so that the verb is found wherever the options put it.

``kubectl --server=URL -n prod delete ns prod`` reads ``prod`` as ``-n``'s value, so ``delete``
is the verb; ``aws --profile prod s3 rm`` is ``aws s3 rm``. ``normal_args`` merges each valued
option with its value into one word (``-n=prod``), after which the rule tables in
``dangerous.py`` find the verb as the first operand, as they would without the options.

Each row says which options take a value before the verb (and after it, for the programs that
accept their global options anywhere), and which verbs take valued options of their own before
a second verb (``docker compose -f FILE down``). An option the row does not know, standing
right before the verb, might take the next word as its value: ``readings`` then gives both
readings, and both are judged. A false alarm costs a click; a verb missed costs the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct, field
from msgspec.structs import replace

from agent_core.safety.shell import Word

WILD = "\x00"  # the value of an option known only at run time (no shell word holds a NUL)


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


class Grammar(Struct, frozen=True):
    valued: frozenset[str]  # global options that take a value: -n NS, --profile P
    flags: frozenset[str] = frozenset()  # global options known to take none
    anywhere: bool = False  # the global options may follow the verb too (kubectl, aws, …)
    # a verb's own options that take a value, wherever they follow it (docker compose -f FILE)
    verbs: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])
    toolchain: bool = False  # a leading +name picks a toolchain (cargo +nightly publish)

    def valued_at(self, verbs: tuple[str, ...]) -> frozenset[str]:
        """The options that take a value after the verbs seen so far."""
        none = frozenset[str]()
        own = self.verbs.get(verbs[0], none) if verbs else none
        if not verbs or self.anywhere:
            return self.valued | own
        return own


_KUBE = Grammar(
    _names(
        "-n --namespace -s --server --context --cluster --user --kubeconfig --token --as "
        "--as-group --as-uid --certificate-authority --client-certificate --client-key "
        "--request-timeout --tls-server-name --cache-dir -v --v --profile --profile-output "
        "--log-file -l --selector -f --filename -o --output -c --container --field-selector"
    ),
    _names("--insecure-skip-tls-verify --match-server-version -A --all-namespaces"),
    anywhere=True,
)
_DOCKER = Grammar(
    _names(
        "-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey "
        "--connection --url --root --runroot --storage-driver --cgroup-manager --identity "
        "--events-backend"
    ),
    _names("-D --debug --tls --tlsverify -r --remote"),
    verbs={
        "compose": _names(
            "-f --file -p --project-name --project-directory --env-file --profile --ansi "
            "--progress --parallel"
        ),
        "buildx": _names("--builder"),
    },
)
_COMPOSE = Grammar(
    _names(
        "-f --file -p --project-name --project-directory --env-file --profile -H --host "
        "--context --ansi --progress --parallel"
    ),
    anywhere=True,
)
_NODE_PACKAGES = Grammar(
    _names(
        "--registry --prefix --userconfig --globalconfig --cache --cache-folder --cwd -C --dir "
        "-w --workspace --filter -F --tag --otp --access --loglevel --reporter --store-dir "
        "--modules-folder --network-timeout --mutex --scope --auth-type --workspace-root"
    ),
    _names("-g --global -s --silent -q --quiet -d --dry-run --json -y --yes -f --force"),
    anywhere=True,
)
_PIP = Grammar(
    _names(
        "--python --proxy --retries --timeout --cert --client-cert --cache-dir --log "
        "--exists-action --trusted-host -i --index-url --extra-index-url -c --constraint "
        "--root-user-action --keyring-provider --use-feature --use-deprecated"
    ),
    _names("-v --verbose -q --quiet --isolated --no-cache-dir --no-input --require-virtualenv"),
    anywhere=True,
)
_APT = Grammar(_names("-o --option -c --config-file -t --target-release"), anywhere=True)
_DNF = Grammar(
    _names("-c --config --installroot --releasever --repo --enablerepo --disablerepo --setopt"),
    anywhere=True,
)
_TERRAFORM = Grammar(_names("-chdir"), _names("-help -version"))

GRAMMARS: dict[str, Grammar] = {
    "git": Grammar(
        _names("-C -c --git-dir --work-tree --namespace --super-prefix --config-env"),
        _names("-p --paginate -P --no-pager --bare --no-replace-objects --literal-pathspecs"),
    ),
    "kubectl": _KUBE,
    "oc": _KUBE,
    "kubecolor": _KUBE,
    "helm": Grammar(
        _names(
            "-n --namespace --kube-context --kubeconfig --kube-apiserver --kube-token "
            "--kube-as-user --kube-as-group --kube-ca-file --registry-config --repository-cache "
            "--repository-config --burst-limit --qps"
        ),
        _names("--debug"),
        anywhere=True,
    ),
    "aws": Grammar(
        _names(
            "--profile --region --output --endpoint-url --query --cli-read-timeout "
            "--cli-connect-timeout --ca-bundle --color --cli-binary-format"
        ),
        _names("--debug --no-verify-ssl --no-paginate --no-sign-request --no-cli-pager"),
        anywhere=True,
    ),
    "gcloud": Grammar(
        _names(
            "--project --account --configuration --format --verbosity "
            "--impersonate-service-account --billing-project --flags-file --flatten "
            "--trace-token --access-token-file --zone --region"
        ),
        _names("-q --quiet --log-http --no-user-output-enabled"),
        anywhere=True,
    ),
    "gsutil": Grammar(_names("-o -h -u"), _names("-m -q -D -d")),
    "az": Grammar(
        _names("--subscription -o --output --query -g --resource-group"),
        _names("--debug --verbose --only-show-errors -y --yes"),
        anywhere=True,
    ),
    "docker": _DOCKER,
    "podman": _DOCKER,
    "nerdctl": _DOCKER,
    "docker-compose": _COMPOSE,
    "podman-compose": _COMPOSE,
    "npm": _NODE_PACKAGES,
    "pnpm": _NODE_PACKAGES,
    "yarn": _NODE_PACKAGES,
    "bun": _NODE_PACKAGES,
    "gh": Grammar(
        _names("-R --repo --hostname"),
        anywhere=True,
        verbs={
            "api": _names(
                "-X --method -H --header -f --raw-field -F --field --input -q --jq -t "
                "--template --cache -p --preview --hostname"
            )
        },
    ),
    "helmfile": Grammar(
        _names("-f --file -e --environment -n --namespace -l --selector --kube-context"),
        anywhere=True,
    ),
    "terraform": _TERRAFORM,
    "tofu": _TERRAFORM,
    "terragrunt": _TERRAFORM,
    "pulumi": Grammar(_names("-C --cwd -s --stack --color"), anywhere=True),
    "cargo": Grammar(
        _names("--config -Z --color --manifest-path --target-dir"),
        _names("-v --verbose -q --quiet --frozen --locked --offline"),
        toolchain=True,
    ),
    "rustup": Grammar(_names("--toolchain"), toolchain=True),
    "pip": _PIP,
    "pip3": _PIP,
    "pipx": Grammar(_names("--python --index-url"), anywhere=True),
    "uv": Grammar(
        _names("--directory --project --cache-dir --config-file --python -p --color"),
        _names("-q --quiet -v --verbose --offline --no-cache --native-tls"),
        anywhere=True,
    ),
    "conda": Grammar(_names("-n --name -p --prefix"), anywhere=True),
    "mamba": Grammar(_names("-n --name -p --prefix"), anywhere=True),
    "micromamba": Grammar(_names("-n --name -p --prefix -r --root-prefix"), anywhere=True),
    "apt": _APT,
    "apt-get": _APT,
    "aptitude": _APT,
    "dnf": _DNF,
    "yum": _DNF,
    "zypper": Grammar(_names("-R --root -c --config"), anywhere=True),
    "brew": Grammar(frozenset(), _names("-v --verbose -d --debug -q --quiet")),
    "gem": Grammar(_names("--config-file"), anywhere=True),
    "systemctl": Grammar(
        _names("-H --host -M --machine -t --type -p --property -s --signal --root"),
        anywhere=True,
    ),
    "redis-cli": Grammar(_names("-h -p -a -n -u -s --user --pass"), anywhere=True),
    "alembic": Grammar(_names("-c --config -n --name -x")),
    "migrate": Grammar(_names("-path -database -source -lock-timeout -prefetch"), anywhere=True),
    "flyctl": Grammar(_names("-a --app -c --config"), anywhere=True),
    "fly": Grammar(_names("-a --app -c --config"), anywhere=True),
    "heroku": Grammar(_names("-a --app -r --remote"), anywhere=True),
    "supabase": Grammar(_names("--workdir --db-url --project-ref"), anywhere=True),
    "curl": Grammar(
        _names(
            "-X --request -H --header -d --data --data-raw --data-binary --data-urlencode "
            "--data-ascii -F --form --form-string -T --upload-file --json -o --output -u --user "
            "-A --user-agent -e --referer -b --cookie -c --cookie-jar -w --write-out "
            "--connect-timeout -m --max-time --retry --cacert --cert --key -x --proxy --resolve "
            "-K --config --url -r --range -z --time-cond"
        ),
        _names(
            "-s --silent -S --show-error -L --location -f --fail -k --insecure -v --verbose -i "
            "--include -I --head -G --get --compressed -N --no-buffer -O --remote-name -J "
            "--remote-header-name -g --globoff -4 -6 --http1.1 --http2 -# --progress-bar"
        ),
        anywhere=True,
    ),
    "wget": Grammar(
        _names(
            "--method -O --output-document --post-data --post-file --body-data --body-file "
            "--header -U --user-agent -o --output-file -P --directory-prefix --user --password"
        ),
        _names("-q --quiet -v --verbose -nv --no-verbose -c --continue -N --timestamping"),
        anywhere=True,
    ),
    "http": Grammar(
        _names(
            "-a --auth -A --auth-type --session --session-read-only --verify --cert "
            "--cert-key --timeout --proxy -o --output -p --print --pretty -s --style"
        ),
        anywhere=True,
    ),
}
for _alias, _program in (("https", "http"), ("xh", "http"), ("xhs", "http")):
    GRAMMARS[_alias] = GRAMMARS[_program]


def normal_args(program: str, args: tuple[Word, ...]) -> tuple[Word, ...]:
    """``args`` with each valued option and its value as one word (``-n prod`` is ``-n=prod``,
    ``-nprod`` too), for a program with a grammar row; else ``args`` as they are."""
    grammar = GRAMMARS.get(program)
    return args if grammar is None else _merged(grammar, args)[0]


def readings(program: str, args: tuple[Word, ...]) -> tuple[tuple[Word, ...], ...]:
    """The ways the program may read ``args``: ``normal_args``, and, while an option the grammar
    does not know stands right before the verb, the reading where it takes the verb as its value
    (so the next word is the verb), each such option widened in turn on top of the ones before
    it: ``--user admin --password secret delete`` is read with ``admin``, ``secret`` and
    ``delete`` as the verb. Each widening takes one more option into the grammar, so there are
    at most as many readings as the line has options."""
    grammar = GRAMMARS.get(program)
    if grammar is None:
        return (args,)
    merged, unknown_at = _merged(grammar, args)
    found = [merged]
    while unknown_at is not None and unknown_at + 1 < len(merged):
        option = (merged[unknown_at].value or "").split("=", 1)[0]
        if option in grammar.valued:
            break
        grammar = replace(grammar, valued=grammar.valued | {option})
        merged, unknown_at = _merged(grammar, args)
        found.append(merged)
    return tuple(found)


def _merged(grammar: Grammar, args: tuple[Word, ...]) -> tuple[tuple[Word, ...], int | None]:
    """The merged words, and the index of an unknown option right before the first verb."""
    out: list[Word] = []
    verbs: tuple[str, ...] = ()
    unknown_at: int | None = None
    rest = list(args)
    while rest:
        word = rest.pop(0)
        value = word.value
        if value == "--":
            out += [word, *rest]
            break
        if value is None or not value.startswith("-") or value == "-":
            if grammar.toolchain and not out and value is not None and value.startswith("+"):
                out.append(Word(word.source, f"--toolchain={value[1:]}"))
                continue
            verbs = (*verbs, value or "")
            out.append(word)
            continue
        valued = grammar.valued_at(verbs)
        split = _bundle(value, valued)
        if "=" not in value and value in valued and rest:
            out.append(_join(word, rest.pop(0)))
        elif split is not None:  # -nprod, -sX DELETE, -sXDELETE: getopt's reading
            flags, option, attached = split
            out += [Word(word.source, flags)] if flags != "-" else []
            taken = Word("", attached) if attached or not rest else rest.pop(0)
            out.append(_join(Word(word.source, option), taken))
        else:
            out.append(word)
        if not verbs:  # the option right before the verb: one the row does not know?
            unknown_at = None if _known(value, valued, grammar.flags) else len(out) - 1
    return tuple(out), unknown_at


def _known(value: str, valued: frozenset[str], flags: frozenset[str]) -> bool:
    """An option the row knows: valued, a flag, a bundle of flags (``-fsSL``), or ``--x=v``."""
    head = value.split("=", 1)[0]
    if "=" in value or head in valued or head in flags or _bundle(value, valued):
        return True
    return not value.startswith("--") and all(f"-{c}" in flags for c in value[1:])


def _bundle(value: str, valued: frozenset[str]) -> tuple[str, str, str] | None:
    """A bundle of short options in which one takes a value, as getopt reads it: (the flags
    before it, the option, what follows it in the word: its value, or "" for the next word)."""
    if value.startswith("--") or "=" in value or value in valued:
        return None
    for index, letter in enumerate(value[1:], start=1):
        if f"-{letter}" in valued:
            return f"-{value[1:index]}", f"-{letter}", value[index + 1 :]
    return None


def _join(option: Word, value: Word) -> Word:
    shown = value.value if value.value is not None else WILD
    return Word(f"{option.source} {value.source}", f"{option.value}={shown}")
