# podwait: podwait-exporter (and the wait-for-pd init container binary, once it exists) on
# Debian bookworm.
#
#   docker build -t podwait-exporter:0.1.0 .
#
# Both stages install their packages through scripts/setup.sh, the one list of system packages
# (profile `build` here, `runtime` below), and the builder runs the README's build script, so
# the image is built exactly as a developer builds. tests/checks/docker_image_test.sh checks
# this file against those scripts (no Docker engine needed).

# --- builder ------------------------------------------------------------------------------------
FROM debian:bookworm AS builder
WORKDIR /src
# The package list first, so that the package layer is cached across source changes.
COPY scripts/setup.sh scripts/setup.sh
RUN scripts/setup.sh build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN scripts/build.sh --release --no-tests \
    && mkdir -p /out \
    && cp build-release/podwait-exporter /out/ \
    && if [ -f wait-for-pd/main.cpp ]; then cp build-release/wait-for-pd /out/; fi \
    && strip --strip-unneeded /out/*

# --- runtime ------------------------------------------------------------------------------------
# debian:bookworm-slim rather than a distroless-like stage with hand-copied .so files: the
# runtime libraries (libcurl4 alone pulls in OpenSSL, nghttp2, LDAP, Kerberos, ...) then come
# from Debian packages with their dependencies resolved by apt and recorded in the dpkg database,
# so image scanners see every library and its version, and a rebuild picks up Debian's security
# updates. The image still needs no shell at run time: the entrypoint is exec form and the
# Kubernetes probes are HTTP.
FROM debian:bookworm-slim
COPY scripts/setup.sh /tmp/setup.sh
RUN /tmp/setup.sh runtime && rm -rf /var/lib/apt/lists/* /tmp/setup.sh
COPY --from=builder /out/ /usr/local/bin/
LABEL org.opencontainers.image.title="podwait-exporter" \
      org.opencontainers.image.description="Autoscaler-aware exporter of why TiDB pods wait on Kubernetes"
# A numeric, non-root user (the conventional "nonroot" id), so that Kubernetes can verify
# runAsNonRoot without a passwd entry.
USER 65532:65532
EXPOSE 9877
ENTRYPOINT ["/usr/local/bin/podwait-exporter"]
