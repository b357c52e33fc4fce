package resource

// UnavailablePluginError is a plugin a program's registration names that
// cannot be had: not installed, and not installable (no version named,
// automatic acquisition disabled, or the download failed). Its message
// names the plugin, its version and the command that installs it. It is a
// validation error: the user installs the plugin and runs again.
type UnavailablePluginError struct {
	Package, Version string
	Err              error
}

func (e *UnavailablePluginError) Error() string { return e.Err.Error() }

// Unwrap returns the reason it cannot be had.
func (e *UnavailablePluginError) Unwrap() error { return e.Err }
