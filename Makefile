# Thin wrappers over scripts/; the README's commands are the scripts themselves.
.PHONY: example test setup bench build fuzz

example:
	scripts/example

test:
	scripts/test

setup:
	scripts/setup

build:
	go build -o bin/aem ./cmd/aem

bench:
	scripts/bench

# A minute of fuzzing per target; not part of the default test run.
fuzz:
	scripts/fuzz
