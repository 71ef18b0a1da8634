// Español, part 7 (device authorization; see ../en/device.ts). Typed by the English part.
import type { DeviceMessages } from "../en/index.js";

export const device: DeviceMessages = {
  "err.devicePending": "El usuario aún no ha permitido ni denegado la solicitud; vuelva a consultar tras el intervalo.",
  "err.deviceSlowDown": "Consultas demasiado seguidas: espere {seconds} segundos entre consultas.",
  "err.deviceDenied": "El usuario denegó la solicitud.",
  "err.deviceExpired": "El código de dispositivo ha caducado; empiece de nuevo.",
  "err.deviceCodeUnknown": "El código de dispositivo es desconocido, de otra aplicación o ya se usó.",
  "err.deviceCodeThrottled": "Se introdujeron demasiados códigos que no corresponden a nada; inténtelo más tarde.",
  "err.deviceUserCodeUnknown":
    "Este código es desconocido, ha caducado o ya se usó. Comprueba el código que muestra tu dispositivo.",
  "device.title": "Conectar un dispositivo",
  "device.lead": "Introduce el código que muestra tu dispositivo para que inicie sesión en {service} en tu nombre.",
  "device.codeLabel": "Código de tu dispositivo",
  "device.codeHint": "8 letras, como BCDF-GHJK. Introduce solo el código de un dispositivo que tengas delante.",
  "device.continue": "Continuar",
  "device.checkCode": "Comprueba que tu dispositivo muestra este código: {code}",
  "device.allowedTitle": "Dispositivo conectado",
  "device.allowedBody": "{app} ha iniciado sesión en tu nombre. Puedes volver a tu dispositivo.",
  "device.deniedTitle": "Dispositivo no conectado",
  "device.deniedBody": "{app} no tiene permiso para iniciar sesión. Puedes cerrar esta página.",
};
