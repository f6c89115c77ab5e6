package scaffold

// Tool returns tool_<name>.go for package pkg: a constructor of a tool whose
// input is an empty object and whose Run returns a not_implemented error.
func Tool(pkg, name, description string) (File, error) {
	if err := CheckToolName(name); err != nil {
		return File{}, err
	}
	if description == "" {
		description = "TODO: describe what " + name + " does, for the agent."
	}
	src, err := render("tool.go.tmpl", map[string]string{
		"Package": pkg, "Name": name, "Ident": ToolIdent(name), "Description": description,
	})
	return File{Path: ToolFile(name), Data: src}, err
}
