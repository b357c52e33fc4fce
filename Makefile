# runner: build, run the local reference environment, test, benchmark, lint.
GO        ?= go
BIN       := bin/runner
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
EXAMPLE   := examples/local
FUZZTIME  ?= 10s
# The demo value of the local environment's secret app:adminPassword and the
# demo passphrase of its stack config. Override both for anything real.
DEMO_ADMIN_PASSWORD ?= demo-admin-password
export PULUMI_CONFIG_PASSPHRASE ?= demo-passphrase

.PHONY: build run destroy test test-short bench lint fuzz clean

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/runner

# The admin password reaches the recipe through the environment, never
# spliced into a shell line, and is taken literally ($(value ...)): a ' or a
# $ in it works as typed. A value given to make (command line or environment)
# is applied whenever the stack holds another; the default only fills a
# missing one.
run: export RUNNER_DEMO_ADMIN_PASSWORD := $(value DEMO_ADMIN_PASSWORD)
run: export RUNNER_DEMO_ADMIN_PASSWORD_GIVEN := $(if $(filter file,$(origin DEMO_ADMIN_PASSWORD)),,yes)
run: build
	@mkdir -p $(EXAMPLE)
	@current=$$($(BIN) --root $(EXAMPLE) --stack dev config get app:adminPassword 2>/dev/null) && \
		{ [ -z "$$RUNNER_DEMO_ADMIN_PASSWORD_GIVEN" ] || [ "$$current" = "$$RUNNER_DEMO_ADMIN_PASSWORD" ]; } || \
		printf '%s' "$$RUNNER_DEMO_ADMIN_PASSWORD" | $(BIN) --root $(EXAMPLE) --stack dev --non-interactive config set --secret app:adminPassword
	$(BIN) --root $(EXAMPLE) --stack dev --non-interactive up --yes

destroy: build
	$(BIN) --root $(EXAMPLE) --non-interactive destroy --yes

test:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed on:"; gofmt -l .; exit 1)
	$(GO) test -race -count=1 -timeout 30m ./...

test-short:
	$(GO) test -short -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./engine/... ./runner/...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseStackConfig -fuzztime $(FUZZTIME) ./config
	$(GO) test -run '^$$' -fuzz FuzzParseEnvFile -fuzztime $(FUZZTIME) ./config
	$(GO) test -run '^$$' -fuzz FuzzRoundTrip -fuzztime $(FUZZTIME) ./engine/pluginhost/wire

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed on:"; gofmt -l .; exit 1)

clean:
	rm -rf bin
