import CustodianContracts
import CustodianRPC
import Foundation
import Logging
import ServiceLifecycle

/// Publishes the audit log's head now and then: a log line (which leaves this machine with the logs) and `/metrics`
/// (which a monitoring system scrapes and keeps). An earlier head, kept anywhere the database's owner cannot reach,
/// lets `custodian audit verify --head` prove that no entry up to it was cut or rewritten (docs/operations.md).
struct AuditHeadPublisher: Service {
    let rpc: RPCClient
    let metrics: GatewayMetrics
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await publish() }
    }

    private func publish() async {
        var published: AuditHead?
        while !Task.isCancelled {
            do {
                let head = try await rpc.call(AuthMethods.auditHead, input: Empty(), context: .background("audit-head", timeout: 10))
                metrics.auditHead.withLock { $0 = head }
                if head != published {
                    logger.info(
                        "audit head", metadata: ["seq": .stringConvertible(head.seq), "hash": .string(head.hash), "head": .string(head.text)])
                    published = head
                }
            } catch {
                logger.warning("audit head not read", metadata: ["error": .string(String(describing: error))])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
