package render

import (
	"reflect"
	"testing"

	"github.com/agent-oracle/oracle/oracle/report"
)

// TestChangeDigestCoversTheCase: setting any field of a changed case but
// its name, its status and its time changes the digest by which reports
// group cases with the same change, so that two cases are grouped only
// when everything a report shows of them is the same (the hash of its
// baseline is shown by the JSON report alone, which groups nothing). A field added to
// the case report and left out of the digest fails here.
func TestChangeDigestCoversTheCase(t *testing.T) {
	base := hostileReport("x").Cases[0]
	want, _ := changeDigest(base)
	same := *base
	same.Case, same.Env, same.Agent, same.Task, same.Elapsed = "other/name/T", "other", "name", "T", 7
	if got, _ := changeDigest(&same); got != want {
		t.Error("the case's name and time change the digest")
	}
	typ := reflect.TypeOf(*base)
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Name {
		case "Case", "Env", "Agent", "Task", "Status", "Elapsed", "Baseline":
			continue
		}
		c := *base
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "!")
		case reflect.Int:
			v.SetInt(v.Int() + 1)
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		case reflect.Pointer:
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			} else {
				v.Set(reflect.Zero(v.Type()))
			}
		default:
			t.Fatalf("field %s (%s): give the test a way to change it", f.Name, f.Type)
		}
		if got, _ := changeDigest(&c); got == want {
			t.Errorf("changing %s leaves the digest as it is: add it to changeDigest", f.Name)
		}
	}
	if _, ok := changeDigest(&report.Case{Status: report.StatusMissing}); ok {
		t.Error("a missing case has a change digest")
	}
}
