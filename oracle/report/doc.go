// Package report is the model of what oracle check found: a Report of
// Cases, each with its Status, its changes (package change), its
// distribution and the statistical gate's decisions, and the Summary that
// counts them. The engine (package oracle) builds reports; the renderers
// (package render), merges of shard reports and accept --from read them.
// Its JSON form, versioned by Format, is the report.json of a check.
package report

const (
	// Format is the version of the JSON form of a Report: a reader
	// refuses a report of another version.
	Format = 1

	// KindDistribution is the Kind of a distribution case in a report; a
	// case compared byte for byte has no kind.
	KindDistribution = "distribution"
)
