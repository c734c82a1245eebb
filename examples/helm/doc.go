// Package helm holds the end-to-end test that drives the Widget example
// server with Helm v4's Go API: a chart of a ConfigMap, a Secret and a
// Widget is installed, upgraded, rolled back and uninstalled, with releases
// kept by Helm's default Secret storage driver.
package helm
