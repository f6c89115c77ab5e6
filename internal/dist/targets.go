package main

import (
	"fmt"
	"strings"
)

// Target is one platform of the release and its names in each packaging
// world.
type Target struct {
	GOOS, GOARCH string
	// NPMOS and NPMCPU are Node's process.platform and process.arch, the
	// os and cpu fields of the platform package.
	NPMOS, NPMCPU string
	// WheelTags are the wheel's platform tags: a Go binary is static, so
	// one wheel serves glibc and musl alike.
	WheelTags []string
}

// Targets are the supported platforms, in release order.
var Targets = []Target{
	{"linux", "amd64", "linux", "x64", []string{"manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"}},
	{"linux", "arm64", "linux", "arm64", []string{"manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_1_aarch64"}},
	// Go 1.26 runs on macOS 12 and later.
	{"darwin", "amd64", "darwin", "x64", []string{"macosx_12_0_x86_64"}},
	{"darwin", "arm64", "darwin", "arm64", []string{"macosx_12_0_arm64"}},
	{"windows", "amd64", "win32", "x64", []string{"win_amd64"}},
}

func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// Exe is the binary's file name on the platform.
func (t Target) Exe() string {
	if t.GOOS == "windows" {
		return "oracle.exe"
	}
	return "oracle"
}

// BinaryName is the binary's name under bin/ of the release.
func (t Target) BinaryName() string {
	name := "oracle-" + t.GOOS + "-" + t.GOARCH
	if t.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// NPMFolder is the platform package's folder under the release's npm/.
func (t Target) NPMFolder() string { return "oracle-" + t.NPMOS + "-" + t.NPMCPU }

// NPMName is the platform package's name.
func (t Target) NPMName() string { return npmScope + "/" + t.NPMFolder() }

// parseTargets reads -targets: GOOS/GOARCH pairs, each a supported one.
func parseTargets(list string) ([]Target, error) {
	var out []Target
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		t, ok := findTarget(name)
		if !ok {
			return nil, fmt.Errorf("unknown_target: %q is not a platform of the release; choose among %s", name, targetNames(Targets))
		}
		if seen[name] {
			return nil, fmt.Errorf("usage: -targets names %s twice", name)
		}
		seen[name] = true
		out = append(out, t)
	}
	return out, nil
}

func findTarget(name string) (Target, bool) {
	for _, t := range Targets {
		if t.String() == name {
			return t, true
		}
	}
	return Target{}, false
}
