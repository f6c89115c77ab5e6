package bench

import (
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// The generated task files are the tasks Environment declares, read
// through the ways env reads a task folder.
func TestTaskFiles(t *testing.T) {
	tasks, err := env.LoadTasks(taskFS{tasks: 12, entities: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 12 || tasks[11].ID != "TASK-000012" || tasks[11].Instruction != "Win entity "+EntityID(11%5) {
		t.Fatalf("tasks: %+v", tasks)
	}
	for _, name := range []string{"tasks/TASK-000013.json", "tasks/TASK-000000.json", "tasks/TASK-1.json", "other/TASK-000001.json"} {
		if _, err := (taskFS{tasks: 12, entities: 5}).Open(name); err == nil {
			t.Errorf("%s opened", name)
		}
	}
}
