@testable import GatehouseServer
import Testing

/// Request counts and the latency histogram as `/metrics` renders them.
@Suite struct MetricsTests {
    static func lines(_ metrics: Metrics) -> [String] {
        metrics.render(gauges: []).split(separator: "\n").map(String.init)
    }

    @Test func countsEachOperationAndStatus() {
        let metrics = Metrics()
        // Repeats, alternations and new keys in between (each new key may move the others).
        let keys: [(String?, Int)] = [
            ("A", 200), ("A", 200), ("B", 200), ("A", 200), ("A", 400), (nil, 404), ("A", 200), ("C", 200),
            ("B", 200), ("B", 200), ("A", 400),
        ]
        for (index, (operation, status)) in keys.enumerated() {
            metrics.record(operation: operation, status: status, seconds: 0.001)
            // A render copies the counts (and then the next record the dictionary) now and then.
            if index % 3 == 0 { _ = metrics.render(gauges: []) }
        }
        let requests = Self.lines(metrics).filter { $0.hasPrefix("gatehouse_requests_total{") }
        #expect(
            requests == [
                #"gatehouse_requests_total{operation="A",status="200"} 4"#,
                #"gatehouse_requests_total{operation="A",status="400"} 2"#,
                #"gatehouse_requests_total{operation="B",status="200"} 3"#,
                #"gatehouse_requests_total{operation="C",status="200"} 1"#,
                #"gatehouse_requests_total{operation="none",status="404"} 1"#,
            ])
    }

    /// At most 50 operation names become labels; the others count as `other`.
    @Test func operationLabelsAreBounded() {
        let metrics = Metrics()
        for index in 0..<60 { metrics.record(operation: "Op\(index)", status: 200, seconds: 0.001) }
        metrics.record(operation: "Op0", status: 200, seconds: 0.001)
        let requests = Self.lines(metrics).filter { $0.hasPrefix("gatehouse_requests_total{") }
        #expect(requests.count == 51)
        #expect(requests.contains(#"gatehouse_requests_total{operation="other",status="200"} 10"#))
        #expect(requests.contains(#"gatehouse_requests_total{operation="Op0",status="200"} 2"#))
    }

    /// Names are cut to 100 UTF-8 bytes on a scalar boundary, however few Characters that is.
    @Test func loggedOperationNamesAreCut() {
        #expect(Router.logged("Ping") == "Ping")
        #expect(Router.logged(String(repeating: "é", count: 100)) == String(repeating: "é", count: 50))
        #expect(Router.logged(String(repeating: "n", count: 5000)) == String(repeating: "n", count: 100))
        let oneCharacter = "a" + String(repeating: "\u{301}", count: 50_000)
        #expect(Router.logged(oneCharacter) == "a" + String(repeating: "\u{301}", count: 49))
    }

    @Test func bucketsAreCumulative() {
        let metrics = Metrics()
        for seconds in [0.0005, 0.001, 0.003, 0.003, 0.2, 20] { metrics.record(operation: nil, status: 200, seconds: seconds) }
        let buckets = Self.lines(metrics).filter { $0.hasPrefix("gatehouse_request_duration_seconds_bucket") }
        #expect(
            buckets == [
                #"gatehouse_request_duration_seconds_bucket{le="0.001"} 2"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.0025"} 2"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.005"} 4"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.01"} 4"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.025"} 4"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.05"} 4"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.1"} 4"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.25"} 5"#,
                #"gatehouse_request_duration_seconds_bucket{le="0.5"} 5"#,
                #"gatehouse_request_duration_seconds_bucket{le="1.0"} 5"#,
                #"gatehouse_request_duration_seconds_bucket{le="2.5"} 5"#,
                #"gatehouse_request_duration_seconds_bucket{le="5.0"} 5"#,
                #"gatehouse_request_duration_seconds_bucket{le="10.0"} 5"#,
                #"gatehouse_request_duration_seconds_bucket{le="+Inf"} 6"#,
            ])
        #expect(Self.lines(metrics).contains("gatehouse_request_duration_seconds_count 6"))
    }
}
