"""τ²-bench's telecom domain, the customer's side (dual control): a simulated phone and the
customer's surroundings, and the tools the simulated user acts on its phone with, written here
from τ²-bench's published user-tool specifications and device data model.

The phone's state is a small model of a real one: SIM, airplane mode, the cellular network it
found (technology and signal, from the surroundings and the network mode preference), mobile
data and roaming, APN settings, Wi-Fi and Wi-Fi calling, data saver, VPN, app permissions.
A tool answers with τ²-bench's texts (most end with the status bar). The methods that are not
tools are what the tasks' initialization actions (breaking the phone) and env assertions call.

One deliberate difference: τ²-bench's ``connect_vpn`` hands the phone a VPN-details object
shared by every phone of the process, which ``break_vpn`` then degrades for all of them; here
each connection gets its own (the state of one sample never leaks into another).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentloop.benchmarks.tau2._toolkit import DB, Toolkit, tau2_tool

__all__ = ["PaymentRequest", "TelecomUserDB", "TelecomUserTools"]

_NO_EXTRA = ConfigDict(extra="forbid")


class SimStatus(str, Enum):
    ACTIVE = "active"
    MISSING = "missing"
    LOCKED_PIN = "locked_pin"
    LOCKED_PUK = "locked_puk"


class NetworkTechnology(str, Enum):
    NONE = "none"
    TWO_G = "2G"
    THREE_G = "3G"
    FOUR_G = "4G"
    FIVE_G = "5G"


class NetworkModePreference(str, Enum):
    FOUR_G_5G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class SignalStrength(str, Enum):
    NONE = "none"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class PerformanceLevel(str, Enum):
    UNKNOWN = "unknown"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class NetworkStatus(str, Enum):
    CONNECTED = "connected"
    SEARCHING = "searching"
    NO_SERVICE = "no_service"
    EMERGENCY_ONLY = "emergency_only"


class APNNames(str, Enum):
    INTERNET = "internet"
    BROKEN = "broken"


class APNSettings(BaseModel):
    """Represents the configuration for a single Access Point Name (APN)."""

    # the model sees this schema (set_apn_settings): names and descriptions are τ²-bench's
    model_config = _NO_EXTRA
    apn_name: APNNames = Field(
        default=APNNames.INTERNET, description="The name identifier for the APN connection."
    )
    reset_at_reboot: bool = Field(
        default=False, description="Whether the APN settings will be reset at the next reboot."
    )
    mms_apn: str | None = Field(
        default="mms",
        description="Specific APN name used for MMS traffic, if different from general data.",
    )
    mmsc_url: str | None = Field(
        default="http://mms.carrier.com/mms/wapenc",
        description="The URL of the Multimedia Messaging Service Center (MMSC). Crucial for MMS.",
    )
    mms_proxy: str | None = Field(
        default=None,
        description="The proxy server address required for MMS traffic on some networks.",
    )
    mms_port: int | None = Field(
        default=None, description="The proxy server port required for MMS traffic on some networks."
    )


class VpnDetails(BaseModel):
    model_config = _NO_EXTRA
    server_address: str | None = None
    protocol: str | None = None
    server_performance: PerformanceLevel = PerformanceLevel.UNKNOWN


class AppPermissions(BaseModel):
    model_config = _NO_EXTRA
    sms: bool = False
    storage: bool = False
    phone: bool = False
    network: bool = False


class AppStatus(BaseModel):
    model_config = _NO_EXTRA
    app_name: str
    permissions: AppPermissions = Field(default_factory=AppPermissions)


def _default_apps() -> dict[str, AppStatus]:
    return {
        "messaging": AppStatus(
            app_name="messaging", permissions=AppPermissions(sms=True, storage=True, phone=True)
        ),
        "browser": AppStatus(
            app_name="browser", permissions=AppPermissions(network=True, storage=True)
        ),
    }


class MockPhoneAttributes(BaseModel):
    """The phone's state."""

    model_config = _NO_EXTRA
    sim_card_status: SimStatus = SimStatus.ACTIVE
    sim_card_missing: bool = False
    airplane_mode: bool = False
    network_signal_strength: SignalStrength = SignalStrength.GOOD
    network_technology_connected: NetworkTechnology = NetworkTechnology.FIVE_G
    network_connection_status: NetworkStatus = NetworkStatus.CONNECTED
    battery_level: int = 80
    data_enabled: bool = True
    roaming_enabled: bool = False
    network_mode_preference: NetworkModePreference = NetworkModePreference.FOUR_G_5G_PREFERRED
    active_apn_settings: APNSettings = Field(default_factory=APNSettings)
    wifi_enabled: bool = False
    wifi_connected: bool = False
    wifi_ssid: str | None = None
    wifi_signal_strength: SignalStrength = SignalStrength.NONE
    wifi_calling_enabled: bool = False
    wifi_calling_mms_over_wifi: bool = False
    data_saver_mode: bool = False
    vpn_enabled_setting: bool = False
    vpn_connected: bool = False
    vpn_details: VpnDetails | None = None
    app_statuses: dict[str, AppStatus] = Field(default_factory=_default_apps)


class PaymentRequest(BaseModel):
    model_config = _NO_EXTRA
    bill_id: str
    amount_due: float
    paid: bool = False


def _default_signals() -> dict[NetworkTechnology, SignalStrength]:
    return {
        NetworkTechnology.TWO_G: SignalStrength.POOR,
        NetworkTechnology.THREE_G: SignalStrength.FAIR,
        NetworkTechnology.FOUR_G: SignalStrength.GOOD,
        NetworkTechnology.FIVE_G: SignalStrength.EXCELLENT,
    }


class UserSurroundings(BaseModel):
    """Where the customer is, and what the carrier's records say of their line (synced)."""

    model_config = _NO_EXTRA
    name: str | None = None
    phone_number: str | None = None
    is_abroad: bool = False
    roaming_allowed: bool = False
    signal_strength: dict[NetworkTechnology, SignalStrength] = Field(
        default_factory=_default_signals
    )
    mobile_data_usage_exceeded: bool = False
    line_active: bool = True
    payment_request: PaymentRequest | None = None


class TelecomUserDB(DB):
    """The customer's side: their phone and their surroundings."""

    device: MockPhoneAttributes = Field(default_factory=MockPhoneAttributes)
    surroundings: UserSurroundings = Field(default_factory=UserSurroundings)


_SIGNAL_ICONS = {
    SignalStrength.NONE: "📵 No Signal",
    SignalStrength.POOR: "📶¹ Poor",
    SignalStrength.FAIR: "📶² Fair",
    SignalStrength.GOOD: "📶³ Good",
    SignalStrength.EXCELLENT: "📶⁴ Excellent",
}
_SPEEDS = {  # Mbps, (min, max) per technology
    NetworkTechnology.TWO_G: (0.1, 0.4),
    NetworkTechnology.THREE_G: (1.0, 5.0),
    NetworkTechnology.FOUR_G: (10.0, 100.0),
    NetworkTechnology.FIVE_G: (50.0, 500.0),
    NetworkTechnology.NONE: (0.0, 0.0),
}
_SIGNAL_FACTORS = {
    SignalStrength.POOR: 0.2,
    SignalStrength.FAIR: 0.5,
    SignalStrength.GOOD: 0.8,
    SignalStrength.EXCELLENT: 1.0,
    SignalStrength.NONE: 0.0,
}
_SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}
_PREFERRED_TECHNOLOGY = {
    NetworkModePreference.FOUR_G_ONLY: NetworkTechnology.FOUR_G,
    NetworkModePreference.THREE_G_ONLY: NetworkTechnology.THREE_G,
    NetworkModePreference.TWO_G_ONLY: NetworkTechnology.TWO_G,
}
_SIM_TEXTS = {
    SimStatus.ACTIVE: "Your SIM card is active and working.",
    SimStatus.MISSING: "No SIM card detected in the phone.",
    SimStatus.LOCKED_PIN: "The SIM card is locked with a PIN code.",
    SimStatus.LOCKED_PUK: "The SIM card is locked with a PUK code.",
}


def _on(flag: bool) -> str:
    return "ON" if flag else "OFF"


class TelecomUserTools(Toolkit):
    """The simulated user's tools on their phone (τ²-bench's ``TelecomUserTools``: its name is
    in the texts of argument errors)."""

    db: TelecomUserDB

    @property
    def device(self) -> MockPhoneAttributes:
        return self.db.device

    @property
    def surroundings(self) -> UserSurroundings:
        return self.db.surroundings

    def _with_status_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self._status_bar()}"

    # --- set up by a task's initialization actions ---
    def set_user_info(self, name: str, phone_number: str) -> None:
        self.surroundings.name = name
        self.surroundings.phone_number = phone_number

    def set_user_location(self, abroad: bool) -> None:
        self.surroundings.is_abroad = abroad

    # --- status bar and network ---
    @tau2_tool(
        "read",
        "Shows what icons are currently visible in your phone's status bar (the area at the "
        "top of the screen). Displays network signal strength, mobile data status (enabled, "
        "disabled, data saver), Wi-Fi status, and battery level.",
    )
    def check_status_bar(self) -> str:
        return f"Status Bar: {self._status_bar()}"

    def _status_bar(self) -> str:
        device = self.device
        icons = []
        if device.airplane_mode:
            icons.append("✈️ Airplane Mode")
        else:
            icons.append(_SIGNAL_ICONS.get(device.network_signal_strength, "📵 No Signal"))
            connected = device.network_technology_connected != NetworkTechnology.NONE
            if connected:
                icons.append(device.network_technology_connected.value)
            if device.data_enabled and connected:
                icons.append("📱 Data Enabled")
                if device.data_saver_mode:
                    icons.append("🔽 Data Saver")
            else:
                icons.append("📵 Data Disabled")
        if device.wifi_enabled and device.wifi_connected:
            ssid = device.wifi_ssid
            icons.append(f"📡 Connected to {ssid}" if ssid else "📡 Enabled")
        if device.vpn_connected:
            icons.append("🔒 VPN Connected")
        icons.append(f"🔋 {device.battery_level}%")
        return " | ".join(icons)

    @tau2_tool(
        "read",
        "Checks your phone's connection status to cellular networks and Wi-Fi. Shows airplane "
        "mode status, signal strength, network type, whether mobile data is enabled, and "
        "whether data roaming is enabled.",
    )
    def check_network_status(self) -> str:
        device = self.device
        lines = [
            f"Airplane Mode: {_on(device.airplane_mode)}",
            f"SIM Card Status: {self._sim_status().value}",
            f"Cellular Connection: {device.network_connection_status.value}",
            f"Cellular Signal: {device.network_signal_strength.value}",
            f"Cellular Network Type: {device.network_technology_connected.value}",
            f"Mobile Data Enabled: {'Yes' if device.data_enabled else 'No'}",
            f"Data Roaming Enabled: {'Yes' if device.roaming_enabled else 'No'}",
            f"Wi-Fi Radio: {_on(device.wifi_enabled)}",
            f"Wi-Fi Connected: {'Yes' if device.wifi_connected else 'No'}",
        ]
        if device.wifi_connected:
            lines.append(f"Connected Wi-Fi Network: {device.wifi_ssid}")
        return "\n".join(lines)

    @tau2_tool("read", "Shows the current network mode preference.")
    def check_network_mode_preference(self) -> str:
        return f"Network Mode Preference: {self.device.network_mode_preference.value}"

    @tau2_tool(
        "write",
        "Changes the type of cellular network your phone prefers to connect to (e.g., 5G, "
        "LTE/4G, 3G). Higher-speed networks (LTE/5G) provide faster data but may use more "
        "battery.",
    )
    def set_network_mode_preference(self, mode: NetworkModePreference | str) -> str:
        try:  # τ²-bench converts a string only
            chosen = NetworkModePreference(mode) if isinstance(mode, str) else mode
        except ValueError:
            options = ", ".join(m.value for m in NetworkModePreference)
            return self._with_status_bar(
                f"Failed to set network mode: '{mode}' is not a valid option. "
                f"Please use one of: {options}"
            )
        self.device.network_mode_preference = chosen
        self.simulate_network_search()
        return self._with_status_bar(f"Preferred Network Mode set to: {chosen.value}")

    def _mobile_data_working(self) -> bool:
        device, around = self.device, self.surroundings
        if device.airplane_mode or device.network_signal_strength == SignalStrength.NONE:
            return False
        if device.network_connection_status == NetworkStatus.NO_SERVICE:
            return False
        if around.is_abroad and not (device.roaming_enabled and around.roaming_allowed):
            return False
        return device.data_enabled and not around.mobile_data_usage_exceeded

    @tau2_tool(
        "read",
        "Measures your current internet connection speed (download speed). Provides "
        "information about connection quality and what activities it can support.",
    )
    def run_speed_test(self) -> str:
        speed, description = self._speed_test()
        if speed is None:
            return f"Speed test failed: {description or 'Could not determine speed'}."
        advice = _SPEED_ADVICE.get(description or "", "")
        return f"Speed Test Result: {speed:.2f} Mbps ({description}). {advice}"

    def _speed_test(self) -> tuple[float | None, str | None]:
        if not self._mobile_data_working():
            return None, "No Connection"
        device = self.device
        factor = 1.0
        if (
            device.vpn_connected
            and device.vpn_details
            and device.vpn_details.server_performance == PerformanceLevel.POOR
        ):
            factor = 0.1
        if device.data_saver_mode:
            factor *= 0.2
        low, high = _SPEEDS.get(device.network_technology_connected, (0.0, 0.0))
        signal = _SIGNAL_FACTORS.get(device.network_signal_strength, 0.0)
        speed = round((low + high) / 2.0 * signal * factor, 2)
        for limit, name in ((1, "Very Poor"), (5, "Poor"), (25, "Fair"), (100, "Good")):
            if speed < limit:
                return speed, name
        return speed, "Excellent"

    # --- airplane mode ---
    @tau2_tool(
        "write",
        "Toggles Airplane Mode ON or OFF. When ON, it disconnects all wireless communications "
        "including cellular, Wi-Fi, and Bluetooth.\n\nReturns the new state of airplane_mode.",
    )
    def toggle_airplane_mode(self) -> str:
        return self._with_status_bar(f"Airplane Mode is now {_on(self._toggle_airplane())}.")

    def _toggle_airplane(self) -> bool:
        device = self.device
        was_on = device.airplane_mode
        device.airplane_mode = not was_on
        if was_on:
            device.network_connection_status = NetworkStatus.SEARCHING
        if not was_on or device.wifi_enabled:
            device.wifi_connected = False
            device.wifi_ssid = None
            device.wifi_signal_strength = SignalStrength.NONE
        if not was_on and device.vpn_connected:
            self._disconnect_vpn()
        self.simulate_network_search()
        return device.airplane_mode

    def turn_airplane_mode_on(self) -> str:
        if not self._toggle_airplane():
            self._toggle_airplane()
        return "Airplane Mode is now ON."

    def turn_airplane_mode_off(self) -> str:
        if self._toggle_airplane():
            self._toggle_airplane()
        return "Airplane Mode is now OFF."

    # --- SIM card ---
    @tau2_tool(
        "read",
        "Checks if your SIM card is working correctly and displays its current status. Shows "
        "if the SIM is active, missing, or locked with a PIN or PUK code.",
    )
    def check_sim_status(self) -> str:
        status = self._sim_status()
        return _SIM_TEXTS.get(status, f"Unknown SIM status: {status.value}")

    def _sim_status(self) -> SimStatus:
        return SimStatus.MISSING if self.device.sim_card_missing else self.device.sim_card_status

    @tau2_tool(
        "write",
        "Simulates removing and reinserting your SIM card. This can help resolve recognition "
        "issues.",
    )
    def reseat_sim_card(self) -> str:
        self.device.sim_card_missing = False
        self.simulate_network_search()
        return self._with_status_bar("SIM card re-seated successfully.")

    def unseat_sim_card(self) -> str:
        self.device.sim_card_missing = True
        self.simulate_network_search()
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: Literal["pin", "puk"]) -> str:
        if mode == "pin":
            self.device.sim_card_status = SimStatus.LOCKED_PIN
        elif mode == "puk":
            self.device.sim_card_status = SimStatus.LOCKED_PUK
        self.simulate_network_search()
        return f"SIM card locked successfully in {mode} mode."

    # --- mobile data and roaming ---
    @tau2_tool(
        "write",
        "Toggles your phone's mobile data connection ON or OFF. Controls whether your phone can "
        "use cellular data for internet access when Wi-Fi is unavailable.\n\nReturns the new "
        "data connection status.",
    )
    def toggle_data(self) -> str:
        return self._with_status_bar(f"Mobile Data is now {_on(self._toggle_data())}.")

    def _toggle_data(self) -> bool:
        self.device.data_enabled = not self.device.data_enabled
        self.simulate_network_search()
        return self.device.data_enabled

    def turn_data_on(self) -> str:
        self.device.data_enabled = True
        return "Data connection restored."

    def turn_data_off(self) -> str:
        if self._toggle_data():
            self._toggle_data()
        return "Data connection broken."

    @tau2_tool(
        "write",
        "Toggles Data Roaming ON or OFF. When ON, your phone can use data networks in areas "
        "outside your carrier's coverage.\n\nReturns the new data roaming status.",
    )
    def toggle_roaming(self) -> str:
        return self._with_status_bar(f"Data Roaming is now {_on(self._toggle_roaming())}.")

    def _toggle_roaming(self) -> bool:
        self.device.roaming_enabled = not self.device.roaming_enabled
        self.simulate_network_search()
        return self.device.roaming_enabled

    def turn_roaming_on(self) -> str:
        if not self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now ON."

    def turn_roaming_off(self) -> str:
        if self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now OFF."

    @tau2_tool(
        "read",
        "Checks if your phone has any data-limiting features active. Shows if Data Saver mode "
        "is on.",
    )
    def check_data_restriction_status(self) -> str:
        if self.device.data_saver_mode:
            return "Data Saver mode is ON (limits data usage)."
        return "Data Saver mode is OFF."

    @tau2_tool(
        "write",
        "Toggles Data Saver mode ON or OFF. When ON, it reduces data usage, which may affect "
        "data speed.\n\nReturns the new data saver mode status.",
    )
    def toggle_data_saver_mode(self) -> str:
        self.device.data_saver_mode = not self.device.data_saver_mode
        return self._with_status_bar(f"Data Saver Mode is now {_on(self.device.data_saver_mode)}.")

    def turn_data_saver_mode_on(self) -> str:
        self.device.data_saver_mode = True
        return "Data Saver Mode is now ON."

    def turn_data_saver_mode_off(self) -> str:
        self.device.data_saver_mode = False
        return "Data Saver Mode is now OFF."

    # --- APN settings ---
    @tau2_tool(
        "read",
        "Checks the technical APN settings your phone uses to connect to your carrier's mobile "
        "data network. Shows current APN name and MMSC URL for picture messaging.",
    )
    def check_apn_settings(self) -> str:
        settings = self.device.active_apn_settings
        return (
            f"Current APN Name: {settings.apn_name.value or 'Not Set'}\n"
            f"MMSC URL (for picture messages): {settings.mmsc_url or 'Not Set'}\n"
            "(These are technical settings, usually best left unchanged.)"
        )

    @tau2_tool("write", "Sets the APN settings for the phone.")
    def set_apn_settings(self, apn_settings: APNSettings | dict[str, Any]) -> str:
        if isinstance(apn_settings, dict):
            apn_settings = APNSettings(**apn_settings)
        self.device.active_apn_settings = apn_settings
        self.simulate_network_search()
        return self._with_status_bar(f"APN settings set to: {apn_settings.apn_name.value}")

    @tau2_tool("write", "Resets your APN settings to the default settings.")
    def reset_apn_settings(self) -> str:
        self.device.active_apn_settings.reset_at_reboot = True
        self.simulate_network_search()
        return self._with_status_bar("APN settings will reset at reboot.")

    def break_apn_settings(self) -> str:
        self.device.active_apn_settings.apn_name = APNNames.BROKEN
        self.simulate_network_search()
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        self.device.active_apn_settings.mmsc_url = None
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    # --- Wi-Fi and Wi-Fi calling ---
    @tau2_tool(
        "read",
        "Checks your Wi-Fi connection status. Shows if Wi-Fi is turned on, which network you're "
        "connected to (if any), and the signal strength.",
    )
    def check_wifi_status(self) -> str:
        device = self.device
        if not device.wifi_enabled:
            return "Wi-Fi is turned OFF."
        if device.wifi_connected:
            return (
                f"Wi-Fi is ON and connected to '{device.wifi_ssid}'. Signal strength: "
                f"{device.wifi_signal_strength.value}."
            )
        return "Wi-Fi is ON but not connected to any network."

    @tau2_tool(
        "write",
        "Toggles your phone's Wi-Fi radio ON or OFF. Controls whether your phone can discover "
        "and connect to wireless networks for internet access.\n\nReturns the new Wi-Fi status.",
    )
    def toggle_wifi(self) -> str:
        device = self.device
        if device.airplane_mode:
            return self._with_status_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
        device.wifi_enabled = not device.wifi_enabled
        if not device.wifi_enabled:
            device.wifi_connected = False
            device.wifi_ssid = None
            device.wifi_signal_strength = SignalStrength.NONE
        return self._with_status_bar(f"Wi-Fi is now {_on(device.wifi_enabled)}.")

    @tau2_tool(
        "read",
        "Checks if Wi-Fi Calling is enabled on your device. This feature allows you to make and "
        "receive calls over a Wi-Fi network instead of using the cellular network.",
    )
    def check_wifi_calling_status(self) -> str:
        return f"Wi-Fi Calling is currently turned {_on(self.device.wifi_calling_enabled)}."

    @tau2_tool(
        "write",
        "Toggles Wi-Fi Calling ON or OFF. This feature allows you to make and receive calls over "
        "Wi-Fi instead of the cellular network, which can help in areas with weak cellular "
        "signal.\n\nReturns the new Wi-Fi Calling status.",
    )
    def toggle_wifi_calling(self) -> str:
        self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        return self._with_status_bar(
            f"Wi-Fi Calling is now {_on(self.device.wifi_calling_enabled)}."
        )

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        if self.device.wifi_calling_enabled != enabled:
            self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        text = f"Wi-Fi Calling is now {_on(enabled)}."
        if mms_over_wifi is not None:
            self.device.wifi_calling_mms_over_wifi = mms_over_wifi
            text += f"\nMMS over Wi-Fi is now {_on(mms_over_wifi)}."
        return text

    # --- VPN ---
    @tau2_tool(
        "read",
        "Checks if you're using a VPN (Virtual Private Network) connection. Shows if a VPN is "
        "active, connected, and displays any available connection details.",
    )
    def check_vpn_status(self) -> str:
        device = self.device
        if device.vpn_connected:
            if device.vpn_details:
                return f"VPN is ON and connected. Details: {device.vpn_details.model_dump()}"
            return "VPN is ON and connected (no specific details available)."
        if device.vpn_enabled_setting:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    @tau2_tool("write", "Connects to your VPN (Virtual Private Network).")
    def connect_vpn(self) -> str:
        if self.device.vpn_connected:
            return "VPN already connected."
        self.device.vpn_connected = True
        self.device.vpn_details = VpnDetails(
            server_address="192.168.1.1",
            protocol="OpenVPN",
            server_performance=PerformanceLevel.EXCELLENT,
        )
        return self._with_status_bar("VPN connected successfully.")

    @tau2_tool(
        "write",
        "Disconnects any active VPN (Virtual Private Network) connection. Stops routing your "
        "internet traffic through a VPN server, which might affect connection speed or access "
        "to content.",
    )
    def disconnect_vpn(self) -> str:
        text = (
            "VPN disconnected successfully."
            if self._disconnect_vpn()
            else "No active VPN connection to disconnect."
        )
        return self._with_status_bar(text)

    def _disconnect_vpn(self) -> bool:
        if not self.device.vpn_connected:
            return False
        self.device.vpn_connected = False
        self.device.vpn_details = None
        return True

    def break_vpn(self) -> str:
        self.connect_vpn()
        assert self.device.vpn_details is not None
        self.device.vpn_details.server_performance = PerformanceLevel.POOR
        return "VPN connection broken."

    # --- apps ---
    @tau2_tool("read", "Returns the name of all installed apps on the phone.")
    def check_installed_apps(self) -> str:
        names = ", ".join(self.device.app_statuses)
        return f"The following apps are installed on the phone: {names}"

    @staticmethod
    def _granted(permissions: AppPermissions) -> list[str]:
        return [
            name.replace("_", " ").lower()
            for name, allowed in permissions.model_dump().items()
            if allowed
        ]

    @tau2_tool(
        "read",
        "Checks detailed information about a specific app. Shows its permissions and "
        "background data usage settings.",
    )
    def check_app_status(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if app is None:
            return f"App '{app_name}' not found on this phone."
        lines = [f"Status for App: {app_name}"]
        granted = self._granted(app.permissions)
        if not granted:
            lines.append(" - Permissions: None granted.")
        else:
            lines.append(" - Permissions Granted:")
            lines += [f"   - {permission}" for permission in granted]
        return "\n".join(lines)

    @tau2_tool(
        "read",
        "Checks what permissions a specific app currently has. Shows if the app has access to "
        "features like storage, camera, location, etc.",
    )
    def check_app_permissions(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if app is None:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app.permissions)
        if not granted:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(granted)}."

    @tau2_tool(
        "write",
        "Gives a specific permission to an app (like access to storage, camera, or location). "
        "Required for some app functions to work properly.",
        {
            "app_name": "The name of the app to grant the permission to.",
            "permission": "The permission to grant, should be lowercase.",
        },
    )
    def grant_app_permission(self, app_name: str, permission: str) -> str:
        ok, message = self._set_permission(app_name, permission, True)
        return self._with_status_bar(f"{'Success. ' if ok else 'Error. '}{message}")

    def _set_permission(self, app_name: str, permission: str, value: bool) -> tuple[bool, str]:
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        verb = "grant" if value else "remove"
        if app is None:
            return False, f"App '{app_name}' not found. Cannot {verb} permission."
        known = list(app.permissions.model_dump())
        if permission not in known:
            if value:
                return (
                    False,
                    f"Permission '{permission}' not tracked for app '{app_name}', available "
                    f"permissions: {known}",
                )
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        setattr(app.permissions, permission, value)
        done = "granted to" if value else "removed from"
        return True, f"Permission '{permission}' {done} app '{app_name}'."

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        return self._set_permission(app_name, permission, False)

    # --- MMS ---
    @tau2_tool("read", "Checks if the default messaging app can send MMS messages.")
    def can_send_mms(self) -> str:
        if self._can_send_mms():
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    def _can_send_mms(self) -> bool:
        device = self.device
        if not self._mobile_data_working():
            return False
        if device.network_technology_connected == NetworkTechnology.TWO_G:
            return False
        if device.wifi_calling_enabled and device.wifi_calling_mms_over_wifi:
            return False  # MMS over Wi-Fi: the carrier does not support it
        if device.active_apn_settings.mmsc_url is None:
            return False
        app = device.app_statuses.get("messaging")
        return app is not None and app.permissions.storage and app.permissions.sms

    # --- the device ---
    @tau2_tool(
        "write",
        "Restarts your phone completely. This can help resolve many temporary software glitches "
        "by refreshing all running services and connections.",
    )
    def reboot_device(self) -> str:
        lines = []
        if self.device.active_apn_settings.reset_at_reboot:
            lines.append("Resetting APN settings...")
            self.device.active_apn_settings = APNSettings()
        lines.append("Restarting network services...")
        self.device.network_connection_status = NetworkStatus.SEARCHING
        self.simulate_network_search()
        return self._with_status_bar("\n".join(lines))

    def simulate_network_search(self) -> None:
        """The network the phone finds: its preferred technology at the surroundings' signal
        when the SIM is active; no service without an active SIM, in airplane mode, with a
        broken APN, or when the carrier's line is not active."""
        device, signals = self.device, self.surroundings.signal_strength
        if self._sim_status() == SimStatus.ACTIVE:
            device.network_connection_status = NetworkStatus.CONNECTED
            preference = device.network_mode_preference
            technology = _PREFERRED_TECHNOLOGY.get(preference, NetworkTechnology.FOUR_G)
            if preference == NetworkModePreference.FOUR_G_5G_PREFERRED:
                five_g = signals.get(NetworkTechnology.FIVE_G, SignalStrength.NONE)
                if five_g != SignalStrength.NONE:
                    technology = NetworkTechnology.FIVE_G
            device.network_technology_connected = technology
            device.network_signal_strength = signals.get(technology, SignalStrength.NONE)
        else:
            self._no_service()
        if (
            device.airplane_mode
            or device.active_apn_settings.apn_name == APNNames.BROKEN
            or not self.surroundings.line_active
        ):
            self._no_service()

    def _no_service(self) -> None:
        self.device.network_connection_status = NetworkStatus.NO_SERVICE
        self.device.network_technology_connected = NetworkTechnology.NONE
        self.device.network_signal_strength = SignalStrength.NONE

    # --- payments ---
    @tau2_tool("read", "Checks if the agent has sent you a payment request.")
    def check_payment_request(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request.bill_id} of {request.amount_due} USD."

    @tau2_tool("write", "Makes a payment for the bill that the agent has sent you.")
    def make_payment(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "You do not have a payment request."
        request.paid = True
        return f"Payment of {request.amount_due} USD has been made for bill {request.bill_id}."

    # --- env assertions ---
    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        return self.device.airplane_mode == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        return self.device.network_connection_status == NetworkStatus(expected_status)

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        return self._mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        return self.device.roaming_enabled == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        return self.device.data_saver_mode == expected_status

    def assert_internet_speed(self, expected_speed: float, expected_desc: Any = None) -> bool:
        speed, description = self._speed_test()
        fast_enough = (speed or 0.0) >= expected_speed
        if expected_desc is None:
            return fast_enough
        return fast_enough and str(description).lower() == str(expected_desc).lower()

    def assert_internet_not_excellent(self) -> bool:
        return str(self._speed_test()[1]).lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        return self._can_send_mms() == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        return self.surroundings.mobile_data_usage_exceeded == expected_status
