package scaffold

// Verifier returns verifier_<id>.go for package pkg: a constructor of a
// verifier of taskID whose only check fails on purpose (env.NotImplemented)
// until it is written.
func Verifier(pkg, id, taskID, name string) (File, error) {
	if err := CheckVerifierID(id); err != nil {
		return File{}, err
	}
	if name == "" {
		name = "TODO: name what " + id + " checks"
	}
	src, err := render("verifier.go.tmpl", map[string]string{
		"Package": pkg, "ID": id, "TaskID": taskID, "Name": name, "Ident": VerifierIdent(id),
		"Comment": comment(name),
	})
	return File{Path: VerifierFile(id), Data: src}, err
}
