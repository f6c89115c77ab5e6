package command

// Version is oracle's version: what oracle --version prints and what
// oracle init records as a manifest's templateVersion.
const Version = "0.1.0"
