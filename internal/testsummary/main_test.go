package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarize(t *testing.T) {
	const pkg = `"Package":"example.com/m/runner"`
	events := strings.Join([]string{
		`{"Action":"start",` + pkg + `}`,
		`{"Action":"run",` + pkg + `,"Test":"TestOK"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass",` + pkg + `,"Test":"TestOK"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBad","Output":"=== RUN   TestBad\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBad","Output":"    bad_test.go:9: got 1, want 2\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}`,
		`{"Action":"fail",` + pkg + `,"Test":"TestBad"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBwrap","Output":"=== RUN   TestBwrap\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBwrap","Output":"    bwrap_test.go:18: the sandbox needs bubblewrap\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBwrap","Output":"--- SKIP: TestBwrap (0.00s)\n"}`,
		`{"Action":"skip",` + pkg + `,"Test":"TestBwrap"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestBwrap2","Output":"    sandbox_test.go:40: the sandbox needs bubblewrap\n"}`,
		`{"Action":"skip",` + pkg + `,"Test":"TestBwrap2"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestScripts/sandbox","Output":"        > [!bwrap] skip 'bubblewrap does not work here'\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestScripts/sandbox","Output":"--- SKIP: TestScripts/sandbox (2.74s)\n"}`,
		`{"Action":"skip",` + pkg + `,"Test":"TestScripts/sandbox"}`,
		`{"Action":"skip",` + pkg + `,"Test":"TestSilent"}`,
		`{"Action":"output",` + pkg + `,"Output":"PASS\n"}`,
		`{"Action":"output",` + pkg + `,"Output":"FAIL\texample.com/m/runner\t0.1s\n"}`,
		`{"Action":"build-output","ImportPath":"example.com/m/env","Output":"env/x.go:1:1: syntax error\n"}`,
		`{"Action":"output",` + pkg + `,"Test":"TestHung","Output":"panic: test timed out after 10m0s\n"}`,
		`go: downloading example.com/dep v1.0.0`,
	}, "\n")
	var out bytes.Buffer
	summary, err := summarize(strings.NewReader(events), &out, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	wantOut := "=== RUN   TestBad\n    bad_test.go:9: got 1, want 2\n--- FAIL: TestBad (0.00s)\n" +
		"FAIL\texample.com/m/runner\t0.1s\n" +
		"env/x.go:1:1: syntax error\n" +
		"go: downloading example.com/dep v1.0.0\n" +
		"panic: test timed out after 10m0s\n"
	if diff := cmp.Diff(wantOut, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	wantSummary := "skipped: 4 tests\n" +
		"  the sandbox needs bubblewrap (runner TestBwrap, runner TestBwrap2)\n" +
		"  [!bwrap] skip 'bubblewrap does not work here' (runner TestScripts/sandbox)\n" +
		"  no reason given (runner TestSilent)\n"
	if diff := cmp.Diff(wantSummary, summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestNoSkipNoSummary(t *testing.T) {
	summary, err := summarize(strings.NewReader(`{"Action":"pass","Package":"p","Test":"TestA"}`), &bytes.Buffer{}, "")
	if err != nil || summary != "" {
		t.Errorf("summarize = %q, %v; want no summary", summary, err)
	}
}
