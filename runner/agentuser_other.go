//go:build !unix

package runner

func runsAsRoot() bool                { return false }
func giveToAgentUser(...string) error { return nil }
