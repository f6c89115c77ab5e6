//go:build unix

package runner

import "os"

// giveToAgentUser hands the agent's own folders to the agent user.
func giveToAgentUser(dirs ...string) error {
	for _, d := range dirs {
		if err := os.Lchown(d, agentUID, agentGID); err != nil {
			return err
		}
	}
	return nil
}

func runsAsRoot() bool { return os.Geteuid() == 0 }
