package otlp

import "fmt"

// VaryingExport is export i of client c, for tests of codecs that decode
// into reused requests: consecutive exports differ in their number of spans,
// in which of them have trace IDs, and in the oneof case of their
// attributes (a string, an integer, a nested list), so that a decode that
// merges into a reused request, or reuses a oneof wrapper or a nested
// message wrongly, shows the export before.
func VaryingExport(c, i int) *ExportTraceServiceRequest {
	ss := &ScopeSpans{}
	for j := range i%3 + 1 {
		sp := &Span{Name: fmt.Sprintf("client %d export %d span %d", c, i, j)}
		switch (i + j) % 3 {
		case 0:
			sp.TraceId = []byte(sp.Name)
			sp.Attributes = []*KeyValue{{Key: "s", Value: &AnyValue{Value: &AnyValue_StringValue{StringValue: sp.Name}}}}
		case 1:
			sp.Attributes = []*KeyValue{{Key: "i", Value: &AnyValue{Value: &AnyValue_IntValue{IntValue: int64(i)}}}}
		default:
			sp.Attributes = []*KeyValue{{Key: "l", Value: &AnyValue{Value: &AnyValue_KvlistValue{KvlistValue: &KeyValueList{
				Values: []*KeyValue{{Key: "b", Value: &AnyValue{Value: &AnyValue_BoolValue{BoolValue: true}}}},
			}}}}}
		}
		ss.Spans = append(ss.Spans, sp)
	}
	return &ExportTraceServiceRequest{ResourceSpans: []*ResourceSpans{{ScopeSpans: []*ScopeSpans{ss}}}}
}

// VaryingExportOf returns the client and index of the VaryingExport that m
// should be, read from its first span's name.
func VaryingExportOf(m *ExportTraceServiceRequest) (c, i int, err error) {
	var j int
	spans := m.GetResourceSpans()
	if len(spans) == 0 || len(spans[0].GetScopeSpans()) == 0 || len(spans[0].GetScopeSpans()[0].GetSpans()) == 0 {
		return 0, 0, fmt.Errorf("not a VaryingExport: no span")
	}
	_, err = fmt.Sscanf(spans[0].GetScopeSpans()[0].GetSpans()[0].GetName(), "client %d export %d span %d", &c, &i, &j)
	return c, i, err
}
