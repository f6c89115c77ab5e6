package command

// Option configures a binary built on Main: what it calls itself in
// --help, --version and its messages.
type Option func(*settings)

type settings struct {
	name, version string
}

// WithName names the binary (default "oracle"), e.g. "helpdesk-oracle":
// --help, --version and every message that names a command use it.
func WithName(name string) Option {
	return func(s *settings) {
		if name != "" {
			s.name = name
		}
	}
}

// WithVersion is what --version prints (default oracle's Version).
func WithVersion(version string) Option {
	return func(s *settings) {
		if version != "" {
			s.version = version
		}
	}
}

func newSettings(opts []Option) settings {
	s := settings{name: "oracle", version: Version}
	for _, o := range opts {
		o(&s)
	}
	return s
}
