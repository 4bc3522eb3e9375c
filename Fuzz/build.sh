#!/usr/bin/env bash
# Builds the libFuzzer targets outside SwiftPM (which cannot give one target its own
# sanitizer flags, and whose executables bring their own `main`): each needed module
# is compiled once with coverage + ASan instrumentation, then each fuzz entry file is
# linked against them; libFuzzer provides `main`.
#
#   Fuzz/build.sh [target...]      (default: all six)  -> .build/fuzz/bin/<target>
#   SANITIZE=fuzzer,address (default)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
SANITIZE=${SANITIZE:-fuzzer,address}
OUT=.build/fuzz
FLAGS=(-O -g -use-ld=lld -parse-as-library -sanitize="$SANITIZE" -I "$OUT/modules")
ROOT=$PWD
mkdir -p "$OUT/modules" "$OUT/obj" "$OUT/bin" "$OUT/gen" "$OUT/link"

# module NAME SOURCES...: one object file and one .swiftmodule (whole-module).
module() {
  local name=$1; shift
  local obj="$OUT/obj/$name.o" newer
  # Up to date when the object is newer than every source and this script.
  if [ -f "$obj" ] && [ -f "$OUT/modules/$name.swiftmodule" ]; then
    newer=$(find "$@" Fuzz/build.sh -newer "$obj" | head -1)
    [ -z "$newer" ] && { echo "  module $name: up to date" >&2; return; }
  fi
  echo "  module $name ($# files)" >&2
  "$SWIFTC" "${FLAGS[@]}" -wmo -module-name "$name" -emit-module -emit-module-path "$OUT/modules/$name.swiftmodule" \
    -c -o "$OUT/obj/$name.o" "$@"
}

# The repo's schema.graphql, embedded so validate-execute and http-request need no files.
{
  echo '/// schema.graphql, embedded by Fuzz/build.sh.'
  echo 'let schemaSDL = ####"""'
  cat schema.graphql
  echo '"""####'
} > "$OUT/gen/SchemaSDL.swift"

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(lexer-parser validate-execute json http-request jwt cbor-cose)

module JSON Sources/JSON/*.swift
module Threading Sources/Threading/*.swift
module GraphQL $(find Sources/GraphQL -name '*.swift' | sort)
needs_http=0 needs_jwt=0 needs_webauthn=0
for t in "${targets[@]}"; do
  [ "$t" = http-request ] && needs_http=1
  [ "$t" = jwt ] && needs_jwt=1
  [ "$t" = cbor-cose ] && needs_webauthn=1
done
# Signatures imports CCrypto (Sources/CCrypto/module.modulemap); JWT and WebAuthn import Signatures; their fuzzers link libcrypto.
if [ $needs_jwt = 1 ] || [ $needs_webauthn = 1 ]; then
  FLAGS+=(-I "$ROOT/Sources/CCrypto")
  module Signatures Sources/Signatures/*.swift
fi
[ $needs_jwt = 1 ] && module JWT Sources/JWT/*.swift
# WebAuthn also imports Sodium (SHA-256), which imports CSodium and CCrypt; libsodium and libcrypt are linked.
if [ $needs_webauthn = 1 ]; then
  FLAGS+=(-I "$ROOT/Sources/CSodium" -I "$ROOT/Sources/CCrypt")
  module Sodium Sources/Sodium/*.swift
  module WebAuthn Sources/WebAuthn/*.swift
fi
if [ $needs_http = 1 ]; then
  # Only the plain value types of HTTPServer: the rest imports libmicrohttpd.
  module HTTPServer Sources/HTTPServer/{HTTPHandler,HTTPHeaders,HTTPRequest,HTTPResponse,HTTPStatus,URLDecoding}.swift
  module GraphQLHTTP Sources/GraphQLHTTP/*.swift
fi

for t in "${targets[@]}"; do
  echo "  fuzzer $t" >&2
  objs=("$OUT/obj/JSON.o" "$OUT/obj/Threading.o" "$OUT/obj/GraphQL.o")
  extra=() libs=()
  case $t in
    json) objs=("$OUT/obj/JSON.o"); extra=(Tests/JSONTests/RoundTripEquality.swift) ;;
    lexer-parser) ;;
    validate-execute) extra=(Fuzz/Shared/StubSchema.swift "$OUT/gen/SchemaSDL.swift") ;;
    http-request) extra=(Fuzz/Shared/StubSchema.swift "$OUT/gen/SchemaSDL.swift"); objs+=("$OUT/obj/HTTPServer.o" "$OUT/obj/GraphQLHTTP.o") ;;
    jwt) objs=("$OUT/obj/JSON.o" "$OUT/obj/Signatures.o" "$OUT/obj/JWT.o"); libs=(-lcrypto) ;;
    cbor-cose) objs=("$OUT/obj/JSON.o" "$OUT/obj/Threading.o" "$OUT/obj/Signatures.o" "$OUT/obj/Sodium.o" "$OUT/obj/WebAuthn.o"); libs=(-lcrypto -lsodium -lcrypt) ;;
    *) echo "unknown fuzz target: $t" >&2; exit 2 ;;
  esac
  # From inside .build/fuzz/link: the driver leaves the entry module's .swiftmodule/.swiftdoc in the cwd.
  (cd "$OUT/link" && "$SWIFTC" "${FLAGS[@]}" -I "$ROOT/$OUT/modules" -wmo -module-name "Fuzz_${t//-/_}" \
    "$ROOT/Fuzz/$t/Fuzzer.swift" "${extra[@]/#/$ROOT/}" "${objs[@]/#/$ROOT/}" -lm "${libs[@]}" -o "$ROOT/$OUT/bin/$t")
done
