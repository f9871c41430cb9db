# Gatehouse toolchain: source this file (`source scripts/toolchain.sh`) to get Node >= 22.19
# and the pinned pnpm on PATH. When the machine already has them, nothing is installed;
# otherwise both come from the npm registry into .toolchain/ (git-ignored). The system
# Node is never replaced, only shadowed on this shell's PATH. Safe to source repeatedly.

gatehouse_toolchain() {
  local self root prefix want_pnpm node_ok pnpm_ok platform try
  # The Node every run of the tests used, so that a new release cannot change a fresh
  # machine's results overnight; any Node >= 22.19 already on the machine is used as it is.
  local want_node=22.23.5
  # This file's own path when sourced: bash names it in BASH_SOURCE, zsh (macOS's default
  # shell) in the %x prompt escape; eval keeps the zsh syntax away from bash's parser.
  if [ -n "${BASH_VERSION:-}" ]; then
    self="${BASH_SOURCE[0]}"
  elif [ -n "${ZSH_VERSION:-}" ]; then
    eval 'self="${(%):-%x}"'
  else
    echo "toolchain: source this file from bash or zsh" >&2
    return 1
  fi
  root="$(cd "$(dirname "$self")/.." && pwd)" || return 1
  prefix="$root/.toolchain"
  want_pnpm="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$root/package.json")"
  if [ -z "$want_pnpm" ]; then
    echo "toolchain: no pnpm version in $root/package.json (packageManager)" >&2
    return 1
  fi

  case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) [ -x "$prefix/bin/node" ] && PATH="$prefix/bin:$PATH" ;;
  esac

  node_ok=no
  if command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)' 2>/dev/null; then
    node_ok=yes
  fi
  pnpm_ok=no
  if [ "$node_ok" = yes ] && command -v pnpm >/dev/null 2>&1 &&
    [ "$(pnpm --version 2>/dev/null)" = "$want_pnpm" ]; then
    pnpm_ok=yes
  fi
  if [ "$node_ok" = yes ] && [ "$pnpm_ok" = yes ]; then
    export PATH
    return 0
  fi

  if ! command -v npm >/dev/null 2>&1; then
    echo "toolchain: npm is needed to install Node 22 and pnpm, and none was found" >&2
    return 1
  fi
  # The per-platform node package holds the binary itself, so no install script has to run.
  platform="$(node -p 'process.platform + "-" + process.arch')" || return 1
  local pkgs=()
  [ "$node_ok" = yes ] || pkgs+=("node-$platform@$want_node")
  pkgs+=("pnpm@$want_pnpm")
  echo "toolchain: installing ${pkgs[*]} into $prefix" >&2
  # A registry that drops a connection mid-download gets two more tries, a few seconds apart.
  for try in 1 2 3; do
    npm install --global --prefix "$prefix" --no-fund --no-audit --loglevel=error "${pkgs[@]}" >&2 && break
    if [ "$try" = 3 ]; then
      echo "toolchain: npm install of ${pkgs[*]} failed 3 times" >&2
      return 1
    fi
    echo "toolchain: npm install of ${pkgs[*]} failed (try $try of 3), trying again" >&2
    sleep $((try * 5))
  done
  case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) PATH="$prefix/bin:$PATH" ;;
  esac
  export PATH
  hash -r
  if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'; then
    echo "toolchain: node $(node --version) is still older than 22.19" >&2
    return 1
  fi
  echo "toolchain: node $(node --version), pnpm $(pnpm --version)" >&2
}

gatehouse_toolchain
