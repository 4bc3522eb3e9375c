#!/usr/bin/env bash
# Installs the Debian packages Gatehouse builds and tests with, when missing.
# As root (or with sudo) it runs apt-get; otherwise it prints the exact command.
set -euo pipefail
packages=(pkg-config libpq-dev libsodium-dev libmicrohttpd-dev libcrypt-dev postgresql)
if [ "${1:-}" = "--test" ]; then
  packages+=(python3-pip wrk)
  # GatehouseServerTests parse docker-compose.yml with PyYAML.
  python3 -c "import yaml" 2>/dev/null || packages+=(python3-yaml)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo); else
  echo "Gatehouse needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo ${cmd[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" "${cmd[@]}" -qq >/dev/null
