// Package annotated holds the tests of two trees that docs/third-party.md
// shows: a permission service shaped like SpiceDB's (authzed/api), whose
// files import protoc-gen-validate's, protovalidate's and grpc-gateway's
// annotations and googleapis' HTTP rules, generated with buf's managed mode
// (gen/), and a tree shaped like containerd's API, whose go_package options
// name containerd's module, generated with M options (containerd/gen/). Its
// own module, so that protovalidate-go and its dependencies stay out of the
// root module.
package annotated
