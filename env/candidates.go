package env

import "io/fs"

// CandidateSource is implemented by environments that carry verifier test
// candidates: for each task, a file candidates/<TASK>.json of labelled
// scripted rollouts with the verdict the task's verifier must give them.
// They test the grading mechanism, not an agent. Environments built by New
// implement it with Definition.Candidates.
type CandidateSource interface {
	// CandidateFiles returns the file system holding candidates/*.json, or
	// nil when the environment has none.
	CandidateFiles() fs.FS
}

// CandidateFiles returns Definition.Candidates.
func (e *environment[S]) CandidateFiles() fs.FS { return e.def.Candidates }

// CandidateFiles returns the candidate files of e, or nil when e carries
// none.
func CandidateFiles(e Environment) fs.FS {
	if src, ok := e.(CandidateSource); ok {
		return src.CandidateFiles()
	}
	return nil
}
