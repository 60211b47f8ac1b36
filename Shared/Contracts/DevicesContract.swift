import CustodianRPC

/// The devices service's methods: Twomes accounts, devices and measurements, OpenSense devices, configuration and uploads.
/// Nothing but the gateway calls them.
public enum DevicesMethods {
    // The methods the gateway routes HTTP requests to (RouteTable): input an HTTPInput, result the API's JSON
    // (rendered by the gateway in the route's style), a RawHTTPReply, or a StreamPage.
    public static let accountActivate = RPCMethod<HTTPInput, JSONValue>("devices.account.activate")
    public static let accountCreate = RPCMethod<HTTPInput, JSONValue>("devices.account.create")
    public static let accountsList = RPCMethod<HTTPInput, JSONValue>("devices.accounts.list")
    public static let deviceActivate = RPCMethod<HTTPInput, JSONValue>("devices.device.activate")
    public static let deviceAttach = RPCMethod<HTTPInput, JSONValue>("devices.device.attach")
    public static let deviceCreate = RPCMethod<HTTPInput, JSONValue>("devices.device.create")
    public static let deviceGet = RPCMethod<HTTPInput, JSONValue>("devices.device.get")
    public static let deviceLabel = RPCMethod<HTTPInput, RawHTTPReply>("devices.device.label")
    public static let deviceLabels = RPCMethod<HTTPInput, RawHTTPReply>("devices.device.labels")
    public static let deviceType = RPCMethod<HTTPInput, JSONValue>("devices.device.type")
    public static let deviceTypesCreate = RPCMethod<HTTPInput, JSONValue>("devices.deviceTypes.create")
    public static let deviceTypesList = RPCMethod<HTTPInput, JSONValue>("devices.deviceTypes.list")
    public static let measurementsExport = RPCMethod<HTTPInput, StreamPage>("devices.measurements.export")
    public static let measurementsFixed = RPCMethod<HTTPInput, JSONValue>("devices.measurements.fixed")
    public static let measurementsVariable = RPCMethod<HTTPInput, JSONValue>("devices.measurements.variable")
    public static let opensenseConfig = RPCMethod<HTTPInput, JSONValue>("devices.opensense.config")
    public static let opensenseDevices = RPCMethod<HTTPInput, JSONValue>("devices.opensense.devices")
    public static let opensenseExport = RPCMethod<HTTPInput, StreamPage>("devices.opensense.export")
    public static let opensenseKey = RPCMethod<HTTPInput, JSONValue>("devices.opensense.key")
    public static let opensenseRegister = RPCMethod<HTTPInput, JSONValue>("devices.opensense.register")
    public static let opensenseReplaceConfig = RPCMethod<HTTPInput, JSONValue>("devices.opensense.replaceConfig")
    public static let opensenseUpload = RPCMethod<HTTPInput, JSONValue>("devices.opensense.upload")
}
