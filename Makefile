# Thin wrappers over scripts/; the README's commands are the scripts themselves.
.PHONY: example test setup bench build install fuzz

# Where `make install` puts aem: PREFIX/bin/aem, and the ONNX Runtime library and
# the default model in PREFIX/share/aem, where that binary looks first.
# DESTDIR stages the install (packaging); the layout under it is the same.
PREFIX ?= /usr/local

# Release builds: no file-system paths in the binary, no symbol table or DWARF
# (stack traces still name functions and lines), and without the Cloud Storage
# client's gRPC DirectPath modules (xDS, Envoy protos: 13 MB; gs:// URLs use the
# JSON API, as they do by default). See BENCHMARKS.md, "Binary size".
RELEASE_FLAGS = -trimpath -tags disable_grpc_modules -ldflags='-s -w'

example:
	scripts/example

test:
	scripts/test

setup:
	scripts/setup

build:
	go build $(RELEASE_FLAGS) -o bin/aem ./cmd/aem

install: build
	scripts/setup --prefix "$(DESTDIR)$(PREFIX)"
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 bin/aem "$(DESTDIR)$(PREFIX)/bin/aem"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/aem and $(DESTDIR)$(PREFIX)/share/aem"

bench:
	scripts/bench

# A minute of fuzzing per target; not part of the default test run.
fuzz:
	scripts/fuzz
