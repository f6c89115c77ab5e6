package statediff_test

import (
	"fmt"

	"github.com/agent-oracle/oracle/runner/statediff"
)

// Members of a collection are matched by id, so the change is named by the
// contact's id, not by its position in the array.
func ExampleCompute() {
	before := []byte(`{"contacts": [{"id": "C-1", "owner": "USR-1"}, {"id": "C-2", "owner": "USR-2"}]}`)
	after := []byte(`{"contacts": [{"id": "C-2", "owner": "USR-3"}, {"id": "C-1", "owner": "USR-1"}]}`)
	d, err := statediff.Compute(before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := d.Marshal()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// {
	//   "scalars": [],
	//   "collections": {
	//     "contacts": {
	//       "added": [],
	//       "removed": [],
	//       "changed": [
	//         {
	//           "id": "C-2",
	//           "changes": [
	//             {
	//               "path": "/owner",
	//               "op": "replace",
	//               "from": "USR-2",
	//               "to": "USR-3"
	//             }
	//           ]
	//         }
	//       ]
	//     }
	//   }
	// }
}
