.PHONY: test quick vet unit bench fuzz dist dist-check

FUZZTIME ?= 60s

test: vet unit

# quick is the suite a change is tried against while it is made: go test
# -short leaves out what is slow (the hosts' scripts, scripts that build a
# project, sandboxed rollouts, browsers, signals); make test runs it all.
quick:
	go test -short ./...

vet:
	go vet ./...
	GOOS=windows go vet ./...
	GOOS=darwin go vet ./...

# unit prints go test's usual lines and then each skipped test with its
# reason (internal/testsummary), so a run says what it did not test.
unit:
	go run ./internal/testsummary -race ./...
	ORACLE_KILL_TEST=1 go test -count=1 -v -run 'TestKilledRecord' ./cmd/oracle

bench:
	go test -run '^$$' -bench . -benchmem ./...

# fuzz runs every fuzz target for FUZZTIME each. Seed corpora and any
# failing inputs found live in testdata/fuzz and run with every go test.
fuzz:
	@for pkg in $$(go list ./...); do \
		for target in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "== $$pkg $$target"; \
			go test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg || exit 1; \
		done; \
	done

# dist builds the release into dist/ (internal/dist): the binaries of
# linux, darwin and windows stamped with VERSION (default: the source's
# command.Version), SHA256SUMS, the npm packages and the Python wheels.
VERSION ?=
dist:
	go run ./internal/dist -out dist $(if $(VERSION),-version $(VERSION))

# dist-check makes the release twice, the second time with an empty build
# cache and in another folder, and compares their checksums: the release
# is reproducible when they are the same.
dist-check: dist
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	GOCACHE="$$tmp/cache" go run ./internal/dist -out "$$tmp/dist" $(if $(VERSION),-version $(VERSION)) && \
	diff dist/SHA256SUMS "$$tmp/dist/SHA256SUMS" && echo "dist-check: two releases, same bytes ($$(wc -l < dist/SHA256SUMS) files)"
