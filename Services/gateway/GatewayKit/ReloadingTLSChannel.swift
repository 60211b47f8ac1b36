import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// TLS in front of a child channel, as HummingbirdTLS's `TLSChannel` does it, except that each connection takes the
/// context of the certificate in use when it is accepted (``ServerCertificate``) instead of one fixed at start. A
/// connection keeps its context for its whole life, so a reload never touches a connection already open.
struct ReloadingTLSChannel<BaseChannel: ServerChildChannel>: ServerChildChannel {
    typealias Value = BaseChannel.Value

    let base: BaseChannel
    let certificate: ServerCertificate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = certificate.context
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension ReloadingTLSChannel: HTTPChannelHandler where BaseChannel: HTTPChannelHandler {
    var responder: HTTPChannelHandler.Responder { base.responder }
}
