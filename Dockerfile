# Multi-stage build: the Swift toolchain image builds a release binary with the Swift
# runtime linked statically; a slim Debian image runs it with its C libraries.
ARG SWIFT_IMAGE=swift:6.3-bookworm
FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config libpq-dev libsodium-dev libmicrohttpd-dev libcrypt-dev libcurl4-openssl-dev libssl-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Plugins ./Plugins
COPY Tools ./Tools
COPY bench ./bench
COPY schema.graphql ./
RUN swift build -c release --product gatehouse --static-swift-stdlib \
 && cp .build/release/gatehouse /usr/local/bin/gatehouse

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libpq5 libsodium23 libmicrohttpd12 libcrypt1 libcurl4 libssl3 libstdc++6 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/gatehouse --create-home gatehouse
COPY --from=build /usr/local/bin/gatehouse /usr/local/bin/gatehouse
USER gatehouse
WORKDIR /var/lib/gatehouse
ENV GATEHOUSE_HOST=0.0.0.0 GATEHOUSE_PORT=1337
EXPOSE 1337
HEALTHCHECK --interval=10s --timeout=3s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/1337 && printf 'GET /ready HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q '200 OK' <&3"]
ENTRYPOINT ["gatehouse"]
CMD ["serve"]
