// Français, partie 5 : la page de démonstration.
import type { DemoMessages } from "../en/index.js";

export const demo: DemoMessages = {
  "demo.title": "Démo : défis en direct",
  "demo.lead": "Cette page utilise le client fourni, {file}, servi par {service}.",
  "demo.createTitle": "1. Créer un défi",
  "demo.question": "Question (dans n’importe quelle langue)",
  "demo.answer": "Réponse",
  "demo.ttl": "Expire après (secondes, facultatif, de 60 à 2592000)",
  "demo.create": "Créer",
  "demo.share": "Partager :",
  "demo.solveTitle": "2. Le résoudre",
  "demo.key": "Clé",
  "demo.load": "Afficher la question",
  "demo.attempt": "Votre réponse",
  "demo.solve": "Résoudre",
  "demo.liveTitle": "3. Résultats en direct",
  "demo.liveText":
    "Collez un CUSTOM TOKEN de votre application ({command}). Il reste uniquement dans cet onglet, jamais dans une URL. Les défis que vous créez ensuite appartiennent à l’application, et chaque tentative apparaît ici dès qu’elle a lieu, depuis n’importe quel appareil, sans recharger.",
  "demo.token": "CUSTOM TOKEN",
  "demo.connect": "Se connecter",
  "demo.disconnect": "Se déconnecter et oublier le jeton",
  "demo.notConnected": "Non connecté.",
  "demo.connecting": "Connexion…",
  "demo.connected": "Connecté à l’application {app}.",
  "demo.resumed": "Reprise : aucun résultat n’a été manqué.",
  "demo.mayBeMissing":
    "Des résultats peuvent manquer : le service ne les conserve plus tous depuis le dernier affiché.",
  "demo.appearBelow": "Les résultats de ses défis apparaissent ci-dessous dès leur arrivée.",
  "demo.lost": "Connexion perdue ({reason}) ; reconnexion…",
  "demo.disconnected": "Déconnecté ; le jeton est oublié.",
  "demo.keyIs": "Clé : {key}",
  "demo.owned": "Il appartient à l’application {app} : chaque tentative apparaît sous « Résultats en direct ».",
  "demo.anonymous":
    "Anonyme : connectez-vous avec un CUSTOM TOKEN (section 3) avant de créer pour suivre les tentatives en direct.",
  "demo.correct": "Correct !",
  "demo.notCorrect": "Incorrect ; réessayez.",
  "demo.verdictCorrect": "correct",
  "demo.verdictWrong": "faux",
  "demo.retryIn": "réessayer dans {seconds} s",
};
