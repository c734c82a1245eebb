// Package cluster holds the tests of kapi servers sharing etcd: two Widget
// servers (examples/widgets/server with --storage etcd) on one embedded
// etcd, and on a three-member etcd cluster on loopback that loses a
// follower, then its leader, under a write load.
//
// The package has no code of its own; run its tests with
//
//	go test -race ./cluster
package cluster
