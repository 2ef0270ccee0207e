//go:build desktop && !production

package app

// Without the production tag Wails compiles its placeholder app, whose Run fails at start
// with "Wails applications will not build without the correct build tags". Fail the build
// instead, with a name that says what to do.
var _ = build_with_tags_desktop_production_webkit2_41
