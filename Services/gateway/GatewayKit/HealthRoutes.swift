import CustodianContracts
import CustodianJSON
import CustodianRPC
import CustodianProcess
import Foundation
import Hummingbird

/// `/healthz` (the process answers), `/readyz` (every routed service has a live replica that reaches the
/// database) and `/metrics` (Prometheus text).
struct HealthRoutes: Sendable {
    let rpc: RPCClient
    let services: [String]
    let metrics: GatewayMetrics

    func add(to router: Router<GatewayRequestContext>) {
        router.get("/healthz") { _, _ in
            JSONResponse.make(["status": "ok"], status: .ok)
        }
        router.get("/readyz") { _, context in
            await readiness(requestID: context.requestID)
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.render())))
        }
    }

    private func readiness(requestID: String) async -> Response {
        let checks = await self.checks(requestID: requestID)
        let ready = checks.values.allSatisfy { $0 == "ok" }
        let body: JSONValue = [
            "status": .string(ready ? "ready" : "not ready"),
            "services": .object(checks.mapValues { .string($0) }),
        ]
        return JSONResponse.make(body, status: ready ? .ok : .serviceUnavailable)
    }

    /// Each service's readiness: `ok`, or what is wrong.
    func checks(requestID: String) async -> [String: String] {
        await withTaskGroup(of: (String, String).self) { group in
            for service in services {
                group.addTask {
                    let context = CallContext(requestID: requestID, deadline: Date().addingTimeInterval(2.5))
                    do {
                        let health = try await rpc.call(SystemMethods.health, on: service, context: context)
                        return (service, health.database == "ok" ? "ok" : "database unreachable")
                    } catch let error as RPCError {
                        return (service, error.message)
                    } catch {
                        return (service, "\(error)")
                    }
                }
            }
            var results: [String: String] = [:]
            for await (service, status) in group { results[service] = status }
            return results
        }
    }
}
