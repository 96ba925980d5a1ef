package generator

// registeredFiles maps the path of every .proto file that a well-known Go
// module generates and registers with protobuf-go to that module and the Go
// package it is generated into: the well-known types (google.golang.org/protobuf)
// and googleapis' common files (google/rpc, google/type, google/api and
// google/api/expr, google/longrunning, google/bytestream, and what the Cloud
// APIs import: google/iam/v1, google/cloud/location), whose Go packages
// are those their go_package options name in googleapis; the validation
// annotations of protoc-gen-validate (validate/validate.proto) and
// protovalidate (buf/validate/validate.proto, whose module is named only by
// its go_package here), grpc-gateway's OpenAPI options
// (protoc-gen-openapiv2/options); and OpenTelemetry's
// OTLP files as go.opentelemetry.io/proto/otlp v1.11.1 generates them (the
// collector's pdata module carries its own copy, generated with
// gogo/protobuf, which registers with gogo's registry, not protobuf-go's).
// protobuf-go panics at start when one program links two Go packages that
// register the same file.
//
// The list is for what buf's managed mode hides: it rewrites go_package in
// the request, so that a file's own Go package is nowhere in it. Where the
// request still carries the file's own go_package and the file is generated
// elsewhere (protoc's M options), that alone makes the note, whoever
// publishes the package, and the list is not consulted. It does not bound
// the notes either: any other file of Google's (under google/, in a
// google.* package) generated outside Google's Go import paths gets one too,
// and well-known types generated at all get one.
var registeredFiles = map[string]registeredFile{
	"google/api/annotations.proto":                                   {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/auth.proto":                                          {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/backend.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/billing.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/client.proto":                                        {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/config_change.proto":                                 {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/configchange"},
	"google/api/consumer.proto":                                      {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/context.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/control.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/distribution.proto":                                  {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/distribution"},
	"google/api/documentation.proto":                                 {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/endpoint.proto":                                      {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/error_reason.proto":                                  {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/error_reason"},
	"google/api/expr/conformance/v1alpha1/conformance_service.proto": {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/conformance/v1alpha1"},
	"google/api/expr/v1alpha1/checked.proto":                         {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1alpha1"},
	"google/api/expr/v1alpha1/eval.proto":                            {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1alpha1"},
	"google/api/expr/v1alpha1/explain.proto":                         {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1alpha1"},
	"google/api/expr/v1alpha1/syntax.proto":                          {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1alpha1"},
	"google/api/expr/v1alpha1/value.proto":                           {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1alpha1"},
	"google/api/expr/v1beta1/decl.proto":                             {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1beta1"},
	"google/api/expr/v1beta1/eval.proto":                             {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1beta1"},
	"google/api/expr/v1beta1/expr.proto":                             {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1beta1"},
	"google/api/expr/v1beta1/source.proto":                           {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1beta1"},
	"google/api/expr/v1beta1/value.proto":                            {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/expr/v1beta1"},
	"google/api/field_behavior.proto":                                {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/field_info.proto":                                    {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/http.proto":                                          {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/httpbody.proto":                                      {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/httpbody"},
	"google/api/label.proto":                                         {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/label"},
	"google/api/launch_stage.proto":                                  {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api"},
	"google/api/log.proto":                                           {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/logging.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/metric.proto":                                        {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/metric"},
	"google/api/monitored_resource.proto":                            {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/monitoredres"},
	"google/api/monitoring.proto":                                    {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/policy.proto":                                        {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/quota.proto":                                         {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/resource.proto":                                      {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/routing.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/annotations"},
	"google/api/service.proto":                                       {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/source_info.proto":                                   {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/system_parameter.proto":                              {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/usage.proto":                                         {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/serviceconfig"},
	"google/api/visibility.proto":                                    {"google.golang.org/genproto/googleapis/api", "google.golang.org/genproto/googleapis/api/visibility"},
	"google/bytestream/bytestream.proto":                             {"google.golang.org/genproto/googleapis/bytestream", "google.golang.org/genproto/googleapis/bytestream"},
	"google/cloud/location/locations.proto":                          {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/cloud/location"},
	"google/iam/v1/iam_policy.proto":                                 {"cloud.google.com/go/iam", "cloud.google.com/go/iam/apiv1/iampb"},
	"google/iam/v1/logging/audit_data.proto":                         {"cloud.google.com/go/iam", "cloud.google.com/go/iam/apiv1/logging/loggingpb"},
	"google/iam/v1/options.proto":                                    {"cloud.google.com/go/iam", "cloud.google.com/go/iam/apiv1/iampb"},
	"google/iam/v1/policy.proto":                                     {"cloud.google.com/go/iam", "cloud.google.com/go/iam/apiv1/iampb"},
	"google/iam/v1/resource_policy_member.proto":                     {"cloud.google.com/go/iam", "cloud.google.com/go/iam/apiv1/iampb"},
	"google/longrunning/operations.proto":                            {"cloud.google.com/go/longrunning", "cloud.google.com/go/longrunning/autogen/longrunningpb"},
	"google/rpc/code.proto":                                          {"google.golang.org/genproto/googleapis/rpc", "google.golang.org/genproto/googleapis/rpc/code"},
	"google/rpc/context/attribute_context.proto":                     {"google.golang.org/genproto/googleapis/rpc", "google.golang.org/genproto/googleapis/rpc/context/attribute_context"},
	"google/rpc/context/audit_context.proto":                         {"google.golang.org/genproto/googleapis/rpc", "google.golang.org/genproto/googleapis/rpc/context"},
	"google/rpc/error_details.proto":                                 {"google.golang.org/genproto/googleapis/rpc", "google.golang.org/genproto/googleapis/rpc/errdetails"},
	"google/rpc/http.proto":                                          {"google.golang.org/genproto/googleapis/rpc", "google.golang.org/genproto/googleapis/rpc/http"},
	"google/rpc/status.proto":                                        {"google.golang.org/genproto/googleapis/rpc", "google.golang.org/genproto/googleapis/rpc/status"},
	"google/type/calendar_period.proto":                              {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/calendarperiod"},
	"google/type/color.proto":                                        {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/color"},
	"google/type/date.proto":                                         {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/date"},
	"google/type/datetime.proto":                                     {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/datetime"},
	"google/type/dayofweek.proto":                                    {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/dayofweek"},
	"google/type/decimal.proto":                                      {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/decimal"},
	"google/type/expr.proto":                                         {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/expr"},
	"google/type/fraction.proto":                                     {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/fraction"},
	"google/type/interval.proto":                                     {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/interval"},
	"google/type/latlng.proto":                                       {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/latlng"},
	"google/type/localized_text.proto":                               {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/localized_text"},
	"google/type/money.proto":                                        {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/money"},
	"google/type/month.proto":                                        {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/month"},
	"google/type/phone_number.proto":                                 {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/phone_number"},
	"google/type/postal_address.proto":                               {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/postaladdress"},
	"google/type/quaternion.proto":                                   {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/quaternion"},
	"google/type/timeofday.proto":                                    {"google.golang.org/genproto", "google.golang.org/genproto/googleapis/type/timeofday"},
	"google/protobuf/compiler/plugin.proto":                          {"google.golang.org/protobuf", "google.golang.org/protobuf/types/pluginpb"},
	"google/protobuf/field_mask.proto":                               {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/fieldmaskpb"},
	"google/protobuf/source_context.proto":                           {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/sourcecontextpb"},
	"google/protobuf/duration.proto":                                 {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/durationpb"},
	"google/protobuf/any.proto":                                      {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/anypb"},
	"google/protobuf/empty.proto":                                    {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/emptypb"},
	"google/protobuf/type.proto":                                     {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/typepb"},
	"google/protobuf/api.proto":                                      {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/apipb"},
	"google/protobuf/wrappers.proto":                                 {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/wrapperspb"},
	"google/protobuf/timestamp.proto":                                {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/timestamppb"},
	"google/protobuf/struct.proto":                                   {"google.golang.org/protobuf", "google.golang.org/protobuf/types/known/structpb"},
	"google/protobuf/descriptor.proto":                               {"google.golang.org/protobuf", "google.golang.org/protobuf/types/descriptorpb"},
	"google/protobuf/go_features.proto":                              {"google.golang.org/protobuf", "google.golang.org/protobuf/types/gofeaturespb"},
	"validate/validate.proto":                                        {"github.com/envoyproxy/protoc-gen-validate", "github.com/envoyproxy/protoc-gen-validate/validate"},
	"buf/validate/validate.proto":                                    {"", "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"},
	"protoc-gen-openapiv2/options/annotations.proto":                 {"github.com/grpc-ecosystem/grpc-gateway/v2", "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options"},
	"protoc-gen-openapiv2/options/openapiv2.proto":                   {"github.com/grpc-ecosystem/grpc-gateway/v2", "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2/options"},
	"opentelemetry/proto/collector/logs/v1/logs_service.proto":       {otlpModule, "go.opentelemetry.io/proto/otlp/collector/logs/v1"},
	"opentelemetry/proto/collector/metrics/v1/metrics_service.proto": {otlpModule, "go.opentelemetry.io/proto/otlp/collector/metrics/v1"},
	"opentelemetry/proto/collector/trace/v1/trace_service.proto":     {otlpModule, "go.opentelemetry.io/proto/otlp/collector/trace/v1"},
	"opentelemetry/proto/common/v1/common.proto":                     {otlpModule, "go.opentelemetry.io/proto/otlp/common/v1"},
	"opentelemetry/proto/logs/v1/logs.proto":                         {otlpModule, "go.opentelemetry.io/proto/otlp/logs/v1"},
	"opentelemetry/proto/metrics/v1/metrics.proto":                   {otlpModule, "go.opentelemetry.io/proto/otlp/metrics/v1"},
	"opentelemetry/proto/resource/v1/resource.proto":                 {otlpModule, "go.opentelemetry.io/proto/otlp/resource/v1"},
	"opentelemetry/proto/trace/v1/trace.proto":                       {otlpModule, "go.opentelemetry.io/proto/otlp/trace/v1"},
}

// otlpModule generates OpenTelemetry's OTLP files; OpenTelemetry-Go's OTLP
// exporters link it, and so most programs that export telemetry.
const otlpModule = "go.opentelemetry.io/proto/otlp"

// registeredFile is a .proto file's registration by a well-known Go module.
type registeredFile struct {
	module    string // the Go module that generates and registers the file; "" if only goPackage names it
	goPackage string // the Go package it is generated into
}
