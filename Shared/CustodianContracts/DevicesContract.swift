import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// The devices service's methods: Twomes accounts, devices and measurements, OpenSense devices, configuration and uploads.
/// Nothing but the gateway calls them.
public enum DevicesMethods {
    // The methods the gateway routes HTTP requests to (RouteTable): input an HTTPInput, result the API's JSON
    // (rendered by the gateway in the route's style), a RawHTTPReply, or a StreamPage.
    public static let accountActivate = RPCMethod<HTTPInput, JSONValue>("devices.account.activate")
    public static let accountCreate = RPCMethod<HTTPInput, JSONValue>("devices.account.create")
    public static let accountsList = RPCMethod<HTTPInput, JSONValue>("devices.accounts.list", retry: .safe)
    public static let devicesList = RPCMethod<HTTPInput, JSONValue>("devices.devices.list", retry: .safe)
    public static let deviceActivate = RPCMethod<HTTPInput, JSONValue>("devices.device.activate")
    public static let deviceAttach = RPCMethod<HTTPInput, JSONValue>("devices.device.attach")
    public static let deviceCreate = RPCMethod<HTTPInput, JSONValue>("devices.device.create")
    public static let deviceGet = RPCMethod<HTTPInput, JSONValue>("devices.device.get", retry: .safe)
    public static let deviceLabel = RPCMethod<HTTPInput, RawHTTPReply>("devices.device.label", retry: .safe)
    public static let deviceLabels = RPCMethod<HTTPInput, RawHTTPReply>("devices.device.labels", retry: .safe)
    public static let deviceType = RPCMethod<HTTPInput, JSONValue>("devices.device.type", retry: .safe)
    public static let deviceTypesCreate = RPCMethod<HTTPInput, JSONValue>("devices.deviceTypes.create")
    public static let deviceTypesList = RPCMethod<HTTPInput, JSONValue>("devices.deviceTypes.list", retry: .safe)
    public static let measurementsExport = RPCMethod<HTTPInput, StreamPage>("devices.measurements.export", retry: .safe)
    public static let measurementsFixed = RPCMethod<HTTPInput, JSONValue>("devices.measurements.fixed", retry: .safe)
    public static let measurementsVariable = RPCMethod<HTTPInput, JSONValue>("devices.measurements.variable", retry: .safe)
    public static let opensenseConfig = RPCMethod<HTTPInput, JSONValue>("devices.opensense.config", retry: .safe)
    public static let opensenseDevices = RPCMethod<HTTPInput, JSONValue>("devices.opensense.devices", retry: .safe)
    public static let opensenseExport = RPCMethod<HTTPInput, StreamPage>("devices.opensense.export", retry: .safe)
    public static let opensenseKey = RPCMethod<HTTPInput, JSONValue>("devices.opensense.key", retry: .safe)
    public static let opensenseRegister = RPCMethod<HTTPInput, JSONValue>("devices.opensense.register")
    public static let opensenseReplaceConfig = RPCMethod<HTTPInput, JSONValue>("devices.opensense.replaceConfig", retry: .safe)
    public static let opensenseUpload = RPCMethod<HTTPInput, JSONValue>("devices.opensense.upload", retry: .safe)
}
