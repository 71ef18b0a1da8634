// Français, part 7 (device authorization; see ../en/device.ts). Typed by the English part.
import type { DeviceMessages } from "../en/index.js";

export const device: DeviceMessages = {
  "err.devicePending":
    "L’utilisateur n’a pas encore autorisé ni refusé la demande ; interrogez de nouveau après l’intervalle.",
  "err.deviceSlowDown": "Interrogations trop rapprochées : attendez {seconds} secondes entre deux interrogations.",
  "err.deviceDenied": "L’utilisateur a refusé la demande.",
  "err.deviceExpired": "Le code d’appareil a expiré ; recommencez.",
  "err.deviceCodeUnknown": "Le code d’appareil est inconnu, appartient à une autre application ou a déjà été utilisé.",
  "err.deviceCodeThrottled": "Trop de codes ne correspondant à rien ont été saisis ; réessayez plus tard.",
  "err.deviceUserCodeUnknown":
    "Ce code est inconnu, expiré ou déjà utilisé. Vérifiez le code affiché par votre appareil.",
  "device.title": "Connecter un appareil",
  "device.lead": "Saisissez le code affiché par votre appareil pour qu’il se connecte à {service} en votre nom.",
  "device.codeLabel": "Code de votre appareil",
  "device.codeHint":
    "8 lettres, par exemple BCDF-GHJK. Ne saisissez que le code d’un appareil que vous avez devant vous.",
  "device.continue": "Continuer",
  "device.checkCode": "Vérifiez que votre appareil affiche ce code : {code}",
  "device.allowedTitle": "Appareil connecté",
  "device.allowedBody": "{app} est connecté en votre nom. Vous pouvez retourner à votre appareil.",
  "device.deniedTitle": "Appareil non connecté",
  "device.deniedBody": "{app} n’a pas été autorisé à se connecter. Vous pouvez fermer cette page.",
};
