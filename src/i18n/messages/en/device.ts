// English, part 7: device authorization (docs/http-api.md#device-authorization): /token's
// answers to a polling device and the /device page.
export const device = {
  "err.devicePending": "The user has not allowed or denied the request yet; poll again after the interval.",
  "err.deviceSlowDown": "Polling too fast: wait {seconds} seconds between polls.",
  "err.deviceDenied": "The user denied the request.",
  "err.deviceExpired": "The device code has expired; start again.",
  "err.deviceCodeUnknown": "The device code is unknown, another app's, or already used.",
  "err.deviceCodeThrottled": "Too many codes that match nothing were entered; try again later.",
  "err.deviceUserCodeUnknown": "This code is unknown, expired or already used. Check the code your device shows.",
  "device.title": "Connect a device",
  "device.lead": "Enter the code your device shows to let it sign in to {service} as you.",
  "device.codeLabel": "Code from your device",
  "device.codeHint": "8 letters, such as BCDF-GHJK. Only enter a code from a device you have in front of you.",
  "device.continue": "Continue",
  "device.checkCode": "Check that your device shows this code: {code}",
  "device.allowedTitle": "Device connected",
  "device.allowedBody": "{app} is signed in as you. You can go back to your device.",
  "device.deniedTitle": "Device not connected",
  "device.deniedBody": "{app} was not allowed to sign in. You can close this page.",
} as const;
