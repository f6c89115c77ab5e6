.PHONY: test vet unit bench fuzz

test: vet unit

vet:
	go vet ./...

unit:
	go test -race ./...

bench:
	go test -run '^$$' -bench . -benchmem ./...

fuzz:
	go test -run '^$$' -fuzz '^FuzzNumbersIn$$' -fuzztime 30s ./env
	go test -run '^$$' -fuzz '^FuzzStatesNumber$$' -fuzztime 30s ./env
	go test -run '^$$' -fuzz '^FuzzNames$$' -fuzztime 30s ./env
