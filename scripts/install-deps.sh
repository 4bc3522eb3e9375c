#!/usr/bin/env bash
# Installs the Debian packages Gatehouse builds and tests with, when missing.
# As root (or with sudo) it runs apt-get; otherwise it prints the exact command.
set -euo pipefail
packages=(pkg-config libpq-dev libsodium-dev libmicrohttpd-dev libcrypt-dev libcurl4-openssl-dev libssl-dev postgresql)
if [ "${1:-}" = "--test" ]; then
  # wrk for the benchmarks, chromium for the browser tests of the pages (fonts-nanum so that
  # the Korean pages' screenshots are readable), PyYAML for the docker-compose.yml check,
  # aiosmtpd and openssl for the SMTP test server, cryptography for the OpenID Connect test provider,
  # pyotp as the independent TOTP implementation the TOTP tests compare with, zbar-tools (zbarimg)
  # to read back the QR code the sample app draws, PyJWT and jwcrypto as the independent JWT
  # libraries that verify access tokens against the served key set, Authlib as the stock OpenID
  # Connect relying party that signs in through Gatehouse's OAuth provider (over python3-requests).
  packages+=(python3-pip wrk chromium fonts-nanum python3-aiosmtpd openssl python3-cryptography python3-pyotp zbar-tools
    python3-jwt python3-jwcrypto python3-authlib python3-requests)
  python3 -c "import yaml" 2>/dev/null || packages+=(python3-yaml)
fi
if [ "${1:-}" = "--ha" ]; then
  # make ha: Patroni, one etcd member, HAProxy, PostgreSQL 15 (Patroni's bin_dir), curl for Patroni's
  # REST checks, aiosmtpd for the SMTP server the mail senders deliver to, cryptography for the
  # passkeys of the load (scripts/ha/authenticator.py).
  packages+=(patroni etcd-server haproxy postgresql-15 curl python3-aiosmtpd python3-cryptography)
fi
ensure_pyyaml() {
  # The Debian package serves Debian's python3; a python3 of its own (pyenv) gets it from PyPI.
  [ "${1:-}" = "--test" ] || return 0
  python3 -c "import yaml" 2>/dev/null || python3 -m pip install --quiet pyyaml >&2 || true
}
ensure_standardwebhooks() {
  # The independent verifier of webhook deliveries (scripts/webhook_receiver.py, run by Debian's
  # python3): the Standard Webhooks reference library, from PyPI.
  [ "${1:-}" = "--test" ] || return 0
  /usr/bin/python3 -c "import standardwebhooks" 2>/dev/null \
    || /usr/bin/python3 -m pip install --quiet --break-system-packages standardwebhooks >&2 || true
}
trap 'ensure_pyyaml "${1:-}"; ensure_standardwebhooks "${1:-}"' EXIT
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
