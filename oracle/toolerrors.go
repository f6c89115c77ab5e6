package oracle

import (
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// setToolErrors fills the tool errors of a changed case: the new and gone
// ones when both sides have a calls.json, otherwise every error of the
// fresh trace (none when there is no trace either).
func setToolErrors(cr *report.Case, oldCalls, freshCalls, trace []byte) {
	if oldCalls != nil && freshCalls != nil {
		if added, gone, ok := change.CallErrorChanges(oldCalls, freshCalls); ok {
			cr.NewToolErrors, cr.GoneToolErrors, cr.ToolErrorsFrom = added, gone, "calls"
			return
		}
	}
	if trace == nil {
		return
	}
	cr.ToolErrors, cr.ToolErrorsFrom = change.ToolErrorsOf(trace), "trace"
}
