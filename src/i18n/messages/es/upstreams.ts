// Español, part 6 (upstream providers; see ../en/upstreams.ts). Typed by the English part.
import type { UpstreamsMessages } from "../en/index.js";

export const upstreams: UpstreamsMessages = {
  "err.upstreamExpired":
    "Este inicio de sesión se empezó hace demasiado tiempo o ya terminó. Vuelve a empezar desde la página de inicio de sesión.",
  "err.upstreamUnreachable":
    "No se puede contactar ahora con el otro servicio de inicio de sesión. Inténtalo más tarde o inicia sesión de otra forma.",
  "err.upstreamRefused":
    "El otro servicio de inicio de sesión no te ha dejado entrar. Inténtalo de nuevo o inicia sesión de otra forma.",
  "err.upstreamInvalid":
    "La respuesta del otro servicio de inicio de sesión no era fiable, así que no se ha hecho nada. Inténtalo de nuevo o inicia sesión de otra forma.",
  "err.upstreamThrottled":
    "Demasiados inicios de sesión con otro servicio comenzados desde esta dirección; inténtalo más tarde.",
  "err.upstreamUnknown": "Este servicio de inicio de sesión no se ofrece aquí.",
  "err.upstreamTaken": "Esta identidad ya está vinculada a otra cuenta.",
  "err.upstreamLastWay":
    "Es la última forma de entrar en tu cuenta: pon una contraseña o añade una llave de acceso antes de desvincularla.",
  "err.upstreamSignupClosed":
    "Ninguna cuenta está vinculada a esta identidad y ahora no se pueden crear cuentas aquí. Inicia sesión en tu cuenta y vincúlala desde la página de tu cuenta.",
  "upstream.continueWith": "Continuar con {name}",
  "upstream.failedTitle": "No se pudo iniciar sesión",
  "account.upstreamsTitle": "Otros servicios de inicio de sesión",
  "account.upstreamsNone": "Ningún otro servicio te da acceso a esta cuenta.",
  "account.upstreamLink": "Añadir {name}",
  "account.upstreamUnlink": "Desvincular",
  "account.upstreamOf": "{name}: {who}",
};
