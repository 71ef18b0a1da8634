// Español, part 8 (the other sign-in services on /admin; see ../en/admin-upstreams.ts). Typed by the English part.
import type { AdminUpstreamsMessages } from "../en/index.js";

export const adminUpstreams: AdminUpstreamsMessages = {
  "admin.upstreams":
    "Servicios de inicio de sesión: añadir botones «Continuar con …» para un proveedor OpenID o GitHub.",
  "adminUpstreams.title": "Otros servicios de inicio de sesión",
  "adminUpstreams.lead":
    "Se puede iniciar sesión aquí con estos servicios («Continuar con …»). Las cuentas siguen vinculadas a ellos cuando se quita un servicio.",
  "adminUpstreams.none": "Todavía no se ofrece ningún otro servicio de inicio de sesión.",
  "adminUpstreams.fromSettings": "Definido en la configuración del servicio: cámbielo allí.",
  "adminUpstreams.shadowed": "La configuración del servicio también nombra este identificador: se usa la suya.",
  "adminUpstreams.unreadable":
    "Su secreto de cliente no se puede leer con el SECRET actual del servicio, así que no se ofrece: escriba de nuevo el secreto.",
  "adminUpstreams.kind": "Tipo",
  "adminUpstreams.kindOidc": "Proveedor OpenID (encontrado por su emisor)",
  "adminUpstreams.kindGithub": "GitHub",
  "adminUpstreams.id": "Identificador",
  "adminUpstreams.idRule": "De 1 a 32 letras y cifras. Forma parte de la dirección de retorno y no se puede cambiar.",
  "adminUpstreams.name": "Nombre en el botón",
  "adminUpstreams.nameRule": "De 1 a 40 caracteres. Vacío: el identificador (para GitHub: «GitHub»).",
  "adminUpstreams.issuer": "Emisor",
  "adminUpstreams.issuerRule":
    "El emisor de un proveedor OpenID (https://…), obligatorio. Para GitHub: vacío para github.com, o la dirección de GitHub Enterprise Server.",
  "adminUpstreams.apiUrl": "Dirección de la API (solo GitHub)",
  "adminUpstreams.apiUrlRule": "Vacío: https://api.github.com, o /api/v3 del emisor.",
  "adminUpstreams.clientId": "Identificador de cliente",
  "adminUpstreams.clientSecret": "Secreto de cliente",
  "adminUpstreams.secretRule": "Se guarda cifrado y no se vuelve a mostrar.",
  "adminUpstreams.secretKeep": "Déjelo vacío para conservar el guardado.",
  "adminUpstreams.callback": "Dirección de retorno",
  "adminUpstreams.callbackNote": "Registre {callback} como dirección de redirección (de retorno) en el servicio.",
  "adminUpstreams.add": "Añadir un servicio de inicio de sesión",
  "adminUpstreams.addButton": "Añadir",
  "adminUpstreams.all": "Todos los servicios de inicio de sesión",
  "adminUpstreams.edit": "Cambiar",
  "adminUpstreams.editNamed": "Cambiar {name}",
  "adminUpstreams.editTitle": "Servicio de inicio de sesión {name}",
  "adminUpstreams.save": "Guardar",
  "adminUpstreams.remove": "Quitar",
  "adminUpstreams.removeNamed": "Quitar {name}",
  "adminUpstreams.removeTitle": "¿Quitar {name}?",
  "adminUpstreams.removeLead":
    "Cuentas vinculadas a través de él: {count}. Sus vínculos se conservan: añadir de nuevo el identificador {id} les permite volver a iniciar sesión con él.",
  "adminUpstreams.onlyWay":
    "{count} de estas cuentas no tienen otra forma de iniciar sesión (ni contraseña, ni llave de acceso, ni otro servicio): no podrán iniciar sesión hasta que se añada de nuevo, o hasta que restablezcan su contraseña por correo.",
  "adminUpstreams.notFound": "Ese servicio de inicio de sesión no existe aquí.",
  "adminUpstreams.taken":
    "El identificador {id} ya está en uso, en la configuración del servicio o en otro servicio de inicio de sesión.",
  "adminUpstreams.bad.id": "Indique un identificador de 1 a 32 letras y cifras.",
  "adminUpstreams.bad.kind": "Elija un proveedor OpenID o GitHub.",
  "adminUpstreams.bad.name": "Indique un nombre de 1 a 40 caracteres, o déjelo vacío.",
  "adminUpstreams.bad.issuer":
    "Indique el emisor como dirección http o https absoluta (un proveedor OpenID necesita uno).",
  "adminUpstreams.bad.api_url":
    "Indique la dirección de la API como dirección http o https absoluta, y solo para GitHub.",
  "adminUpstreams.bad.client_id": "Indique el identificador de cliente (hasta 512 caracteres).",
  "adminUpstreams.bad.client_secret": "Indique el secreto de cliente (hasta 512 caracteres).",
  "adminUpstreams.done.added":
    "El servicio de inicio de sesión está añadido. Registre su dirección de retorno en el servicio.",
  "adminUpstreams.done.changed": "Los cambios están guardados.",
  "adminUpstreams.done.removed": "{name} está quitado.",
  "audit.type.upstream.added": "Servicio de inicio de sesión añadido",
  "audit.type.upstream.changed": "Servicio de inicio de sesión cambiado",
  "audit.type.upstream.removed": "Servicio de inicio de sesión quitado",
};
