// Command oracle runs agents through the built-in evaluation environments
// and gates their behaviour on frozen baselines. See package command for the
// command tree, which other binaries reuse with their own environments.
package main

import (
	"os"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/fixtures"
)

func main() { os.Exit(command.Main(os.Args, fixtures.All)) }
