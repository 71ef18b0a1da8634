// Español, part 5 (identity events; see ../en/events.ts). Typed by the English part.
import type { EventsMessages } from "../en/index.js";

export const events: EventsMessages = {
  "err.webhookUrlProblem": "URL del webhook: {problem}",
  "err.backchannelLogoutProblem": "URL de cierre de sesión back-channel: {problem}",
  "err.webhookChannels":
    "Canales del webhook: cada uno es un nombre de canal o un prefijo terminado en * («orders:*»; «*» para todos los canales); como máximo {max}.",
  "dev.events": "Eventos de identidad",
  "dev.eventsLead":
    "Avisar a la aplicación cuando uno de sus usuarios retira su consentimiento, cierra sesión o es desactivado o eliminado.",
  "dev.webhookUrl": "URL del webhook",
  "dev.webhookUrlHint":
    "Opcional: los eventos se envían aquí por POST, firmados al modo de Standard Webhooks. Vacío: ninguno.",
  "dev.newWebhookSecret": "Crear un nuevo secreto de firma",
  "dev.webhookChannels": "Canales enviados al webhook",
  "dev.webhookChannelsHint":
    "Opcional: los mensajes publicados en estos canales también se envían por POST al webhook, como eventos channel.message. Nombres o prefijos terminados en *, separados por comas. Vacío: ninguno.",
  "dev.backchannelLogout": "URL de cierre de sesión back-channel",
  "dev.backchannelLogoutHint":
    "Opcional: los tokens de OpenID Connect Back-Channel Logout se envían aquí por POST cuando termina la sesión de un usuario.",
  "dev.eventsSubmit": "Guardar los eventos",
  "dev.eventsSaved": "Se guardaron los ajustes de eventos de {app}.",
  "dev.webhookSecret": "Copie ahora el secreto de firma del webhook: no se volverá a mostrar.",
  "dev.deliveries": "Últimos envíos",
  "dev.noDeliveries": "Aún no se ha enviado nada.",
  "dev.deliveryWhen": "Cuándo",
  "dev.deliveryEvent": "Evento",
  "dev.deliveryTo": "A",
  "dev.deliveryAttempt": "Intento",
  "dev.deliveryAnswer": "Respuesta",
  "dev.deliveryOutcome": "Resultado",
  "dev.outcomeDelivered": "entregado",
  "dev.outcomeRetrying": "se reintentará",
  "dev.outcomeFailed": "abandonado",
  "dev.kindWebhook": "webhook",
  "dev.kindBackchannel": "cierre de sesión back-channel",
  "dev.failRedirect": "una redirección (no seguida)",
  "dev.failTimeout": "sin respuesta en {ms} ms",
  "dev.failNotPublic": "no enviado: la dirección no es pública (DELIVERY_ALLOW_PRIVATE=true lo permite)",
  "dev.failConnection": "la conexión falló",
  "dev.failConnectionCode": "la conexión falló ({code})",
  "dev.failSecret": "el secreto del webhook no se puede abrir (SECRET cambió): vuelva a guardar la URL",
};
