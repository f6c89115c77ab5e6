.PHONY: test vet unit bench fuzz

FUZZTIME ?= 60s

test: vet unit

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
