// Package timeline makes the page of one rollout, what oracle view shows:
// a run folder (.silo/runs/<runId>/) or one case of a check's report
// folder (DIR/fresh/<env>/<agent>/<TASK>.*) as one self-contained HTML
// page. The page shows the task's instruction, then the rollout as a
// timeline in the order it happened (each tool call with its input and its
// output or tool error, a model agent's requests and responses, the
// agent's other events, unknown ones listed as they are), the agent's
// answer, the checks with their kinds and details, the verdict, reward and
// termination reason, and the state diff member by member.
//
// The artifacts are read through internal/safeio (bounded, no symlink,
// FIFO or device), each as its runner type or a tolerant shape, so the
// original runner's files are read too. Every value reaches the page
// escaped (html/template), with its invisible characters named, cut to
// the page's bounds with the cut said, and folded when long; the page
// loads nothing and runs no script, and its content security policy
// forbids both.
package timeline
