package scaffold

import (
	"fmt"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
)

// Package returns the files of a new environment package called name: a
// package comment, a small State with a clock and a collection, a read and a
// write tool, a reference agent solver that answers nothing until written,
// TASK-001 with its verifier (failing on purpose), New with the tasks
// embedded, and the registry. name must pass CheckPackageName.
func Package(name, description string) ([]File, error) {
	if err := CheckPackageName(name); err != nil {
		return nil, err
	}
	if description == "" {
		description = "TODO: describe the " + name + " environment."
	}
	data := map[string]string{"Package": name, "Name": name, "Description": description}
	files := []File{}
	for _, f := range []struct{ path, tmpl string }{
		{"doc.go", "doc.go.tmpl"},
		{"state.go", "state.go.tmpl"},
		{"tools.go", "tools.go.tmpl"},
		{"solver.go", "solver.go.tmpl"},
		{mainFile(name), "env.go.tmpl"},
	} {
		src, err := render(f.tmpl, data)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: f.path, Data: src})
	}
	task := firstTask()
	taskJSON, err := TaskFile(task)
	if err != nil {
		return nil, err
	}
	files = append(files, taskJSON)
	ver, err := Verifier(name, task.VerifierID, task.ID, "The offsite item is done")
	if err != nil {
		return nil, err
	}
	files = append(files, ver)
	reg, err := Scan(files)
	if err != nil {
		return nil, err
	}
	regFile, err := reg.File()
	if err != nil {
		return nil, err
	}
	return append(files, regFile), nil
}

// mainFile is the file holding New: <name>.go, unless that is the name of
// another scaffolded file.
func mainFile(name string) string {
	switch name + ".go" {
	case "doc.go", "state.go", "tools.go", "solver.go", RegistryFile, VerifierFile("VER-001"):
		return "environment.go"
	}
	return name + ".go"
}

// TaskFile returns tasks/<id>.json for t, after checking it with
// env.ParseTask as the environment will read it.
func TaskFile(t env.Task) (File, error) {
	data, err := canon.Marshal(t)
	if err != nil {
		return File{}, err
	}
	path := "tasks/" + t.ID + ".json"
	if _, err := env.ParseTask(path, data); err != nil {
		return File{}, fmt.Errorf("new task: %w", err)
	}
	if strings.HasPrefix(t.ID, ".") || strings.HasPrefix(t.ID, "_") {
		// go:embed tasks/*.json leaves such files out: the task would never load.
		return File{}, fmt.Errorf("new task: task id %q starts with %q, and the package's go:embed leaves out files whose name does; start it with a letter or digit", t.ID, t.ID[:1])
	}
	return File{Path: path, Data: data}, nil
}

// firstTask is the task a scaffolded environment starts with, in every
// language: its world has the items it names.
func firstTask() env.Task {
	return env.Task{
		ID:          "TASK-001",
		Title:       "Mark the offsite booked",
		Instruction: "The team offsite is booked. Mark its item as done, and say which item you marked.",
		Difficulty:  "easy",
		VerifierID:  "VER-001",
		Entities:    []string{"ITEM-002"},
	}
}
