.PHONY: test vet unit bench fuzz

test: vet unit

vet:
	go vet ./...

unit:
	go test -race ./...

bench:
	go test -run '^$$' -bench . -benchmem ./...
