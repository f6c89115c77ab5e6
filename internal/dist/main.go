// Command dist builds oracle's release from the checkout, without the
// network: the binary of each platform (cross-compiled and reproducible:
// -trimpath, no build id, no VCS stamp, the version stamped so that
// `oracle version` says it), their checksums, the npm packages (esbuild's
// shape: a main package whose bin runs the binary of the one platform
// package npm installed, no install script, nothing downloaded at install
// time) and one Python wheel a platform whose script is the binary (ruff's
// shape: pip install puts oracle on the PATH). make dist runs it:
//
//	go run ./internal/dist [-version V] [-out DIR] [-targets linux/amd64,...]
//
// DIR (default dist) is written whole or not at all: the release is made in
// a temporary folder beside it and renamed into place, and an existing DIR
// is replaced only when it is an earlier release (it holds SHA256SUMS) or
// empty. Its layout:
//
//	bin/oracle-GOOS-GOARCH[.exe]   the binaries
//	npm/oracle/                    @agent-oracle/oracle, the main package
//	npm/oracle-OS-CPU/             @agent-oracle/oracle-OS-CPU, a platform's binary
//	wheels/agent_oracle-V-py3-none-TAG.whl
//	SHA256SUMS                     every file above, as sha256sum -c reads it
//
// Publishing is `npm publish` of each npm folder (platform packages first)
// and uploading the wheels and binaries; nothing here publishes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("dist", flag.ContinueOnError)
	flags.SetOutput(stderr)
	version := flags.String("version", "", "the version to stamp (default: command.Version of the source)")
	out := flags.String("out", "dist", "the folder the release is written to, whole")
	targets := flags.String("targets", "", "comma-separated GOOS/GOARCH pairs (default: every supported platform)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "error: usage: dist takes no arguments, got %q\n", flags.Arg(0))
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 2
	}
	if *version == "" {
		if *version, err = sourceVersion(root); err != nil {
			fmt.Fprintln(stderr, "error:", err)
			return 2
		}
	}
	chosen := Targets
	if *targets != "" {
		if chosen, err = parseTargets(*targets); err != nil {
			fmt.Fprintln(stderr, "error:", err)
			return 2
		}
	}
	files, err := Release{Root: root, Version: *version, Targets: chosen, Log: stderr}.Write(*out)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s: oracle %s for %s (%d files)\n", *out, *version, targetNames(chosen), len(files))
	return 0
}

func targetNames(ts []Target) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}
