import CustodianHTTP
import CustodianRPC

/// The devices service's methods: Twomes accounts, devices and measurements, OpenSense devices, configuration and uploads.
/// Nothing but the gateway calls them: each is a route's (docs/rpc.md, "Typed routed methods"), and its input is read
/// from the request in its API's words (``RequestDecoding/fastAPI`` for Twomes and the admin API, ``RequestDecoding/openSense``).
public enum DevicesMethods {
    // Twomes provisioning and uploads (docs/twomes.md).
    public static let accountCreate = RoutedMethod<CreateAccountRequest, CreateAccountResponse>("devices.account.create")
    public static let accountActivate = RoutedMethod<AccountActivation, SessionToken>("devices.account.activate")
    public static let deviceCreate = RoutedMethod<CreateDeviceRequest, DeviceItem>("devices.device.create")
    public static let deviceType = RoutedMethod<DeviceByName, DeviceTypeItem>("devices.device.type", retry: .safe)
    public static let deviceAttach = RoutedMethod<DeviceActivation, DeviceItem>("devices.device.attach")
    public static let deviceActivate = RoutedMethod<DeviceActivation, SessionToken>("devices.device.activate")
    public static let deviceGet = RoutedMethod<DeviceByName, DeviceItem>("devices.device.get", retry: .safe)
    public static let measurementsVariable = RoutedMethod<VariableIntervalUpload, UploadResult>("devices.measurements.variable", retry: .safe)
    public static let measurementsFixed = RoutedMethod<FixedIntervalUpload, UploadResult>("devices.measurements.fixed", retry: .safe)

    // Twomes for researchers (the admin API).
    public static let deviceTypesCreate = RoutedMethod<CreateDeviceTypeRequest, DeviceTypeDefinition>("devices.deviceTypes.create")
    public static let deviceTypesList = RoutedMethod<NoInput, DeviceTypeList>("devices.deviceTypes.list", retry: .safe)
    public static let accountsList = RoutedMethod<AccountsQuery, AccountsPage>("devices.accounts.list", retry: .safe)
    public static let devicesList = RoutedMethod<DevicesQuery, DevicesPage>("devices.devices.list", retry: .safe)
    public static let accountDetail = RoutedMethod<AccountDetailQuery, AccountDetail>("devices.account.detail", retry: .safe)
    public static let deviceDetail = RoutedMethod<DeviceDetailQuery, DeviceDetail>("devices.device.detail", retry: .safe)
    /// Not safe to repeat: a second call mints another token, and the first answer's token stops working.
    public static let accountReissue = RoutedMethod<AccountByPseudonym, IssuedActivation>("devices.account.reissue")
    public static let accountsCohort = RoutedMethod<CohortRequest, CohortAccounts>("devices.accounts.cohort")
    /// Activated, attached devices reporting and silent, for the gateway's `/metrics`.
    public static let twomesActivity = RPCMethod<Empty, TwomesActivity>("devices.twomes.activity", retry: .safe)
    /// Raw: a PNG or SVG image, made by `links`.
    public static let deviceLabel = RoutedMethod<DeviceLabelRequest, RawHTTPReply>("devices.device.label", retry: .safe)
    /// Raw: an HTML page of labels, made by `links`.
    public static let deviceLabels = RoutedMethod<LabelSheetRequest, RawHTTPReply>("devices.device.labels", retry: .safe)
    /// Streamed: CSV or NDJSON, too large for one answer.
    public static let measurementsExport = RoutedMethod<MeasurementExportQuery, StreamPage>("devices.measurements.export", retry: .safe)

    // Erasure and detaching (docs/erasure.md): idempotent, so a retry is safe.
    public static let accountErase = RoutedMethod<AccountByPseudonym, ErasureReceipt>("devices.account.erase", retry: .safe)
    public static let deviceDetach = RoutedMethod<DeviceByName, DeviceDetachment>("devices.device.detach", retry: .safe)
    public static let deviceErase = RoutedMethod<DeviceByName, ErasureReceipt>("devices.device.erase", retry: .safe)
    public static let opensenseErase = RoutedMethod<OpenSenseDeviceByID, ErasureReceipt>("devices.opensense.erase", retry: .safe)

    // OpenSense (docs/opensense.md) and its researcher routes.
    public static let opensenseRegister = RoutedMethod<OpenSenseRegistration, OpenSenseKey>("devices.opensense.register")
    public static let opensenseConfig = RoutedMethod<NoInput, OpenSenseConfiguration>("devices.opensense.config", retry: .safe)
    public static let opensenseUpload = RoutedMethod<OpenSenseUpload, OpenSenseUploadStatus>("devices.opensense.upload", retry: .safe)
    public static let opensenseDevices = RoutedMethod<OpenSenseDevicesQuery, OpenSenseDeviceList>("devices.opensense.devices", retry: .safe)
    public static let opensenseDevice = RoutedMethod<OpenSenseDeviceDaysQuery, OpenSenseDeviceDays>("devices.opensense.device", retry: .safe)
    public static let opensenseKey = RoutedMethod<OpenSenseDeviceByID, RecoveredOpenSenseKey>("devices.opensense.key", retry: .safe)
    public static let opensenseReplaceConfig = RoutedMethod<OpenSenseConfigurationUpdate, OpenSenseConfiguration>(
        "devices.opensense.replaceConfig", retry: .safe)
    /// Streamed: CSV or NDJSON, too large for one answer.
    public static let opensenseExport = RoutedMethod<OpenSenseExportQuery, StreamPage>("devices.opensense.export", retry: .safe)
}
