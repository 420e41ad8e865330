# scripts/s3-store.bash: sourced by scripts/example-shards and
# scripts/bench-shards. s3_store_start DIR runs the S3 test server (the
# Versity S3 Gateway that scripts/setup --s3 builds) over DIR (each folder a
# bucket) on a free loopback port, with credentials made up for this run,
# and exports the AWS environment that points aem at it; s3_store_stop
# stops it. The caller runs from the repository root.

S3_STORE_BIN=.aem/tools/versitygw-v1.8.0
S3_STORE_PID=""

s3_store_start() {
  local dir=$1 port
  [[ -x $S3_STORE_BIN ]] || { echo "$S3_STORE_BIN is missing: run scripts/setup --s3" >&2; return 1; }
  mkdir -p "$dir"
  AWS_ACCESS_KEY_ID="AKLOCAL$RANDOM$RANDOM" AWS_SECRET_ACCESS_KEY="$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')"
  export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
  for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    ROOT_ACCESS_KEY=$AWS_ACCESS_KEY_ID ROOT_SECRET_KEY=$AWS_SECRET_ACCESS_KEY \
      "$S3_STORE_BIN" --port "127.0.0.1:$port" --quiet posix "$dir" >"$dir.log" 2>&1 &
    S3_STORE_PID=$!
    for _ in $(seq 100); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        export AWS_ENDPOINT_URL_S3=http://127.0.0.1:$port
        return 0
      fi
      kill -0 "$S3_STORE_PID" 2>/dev/null || break
      sleep 0.05
    done
    kill "$S3_STORE_PID" 2>/dev/null; wait "$S3_STORE_PID" 2>/dev/null || true
    S3_STORE_PID=""
  done
  echo "the S3 server did not start: $(tail -n 3 "$dir.log")" >&2
  return 1
}

s3_store_stop() {
  if [[ -n $S3_STORE_PID ]]; then
    kill "$S3_STORE_PID" 2>/dev/null && wait "$S3_STORE_PID" 2>/dev/null
    S3_STORE_PID=""
  fi
  return 0
}
