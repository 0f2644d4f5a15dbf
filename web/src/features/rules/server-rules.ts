/** The five rules, in order, with the short explanation shown under each. */
export const SERVER_RULES = [
  {
    title: 'Be Respectful',
    description: 'Treat every member with respect. No harassment, hate speech, discrimination, threats or personal attacks.',
  },
  {
    title: 'No Spam or Self-Promotion',
    description:
      "Don't flood channels, mass-mention or send unsolicited DMs, and don't advertise servers, products or social media without staff permission.",
  },
  {
    title: "Follow Discord's Terms of Service",
    description: "Discord's Terms of Service and Community Guidelines apply here too, including the minimum age to use Discord.",
  },
  {
    title: 'Keep Content Appropriate',
    description: 'No NSFW, gore, shock or illegal content, and keep each channel on its topic.',
  },
  {
    title: 'Listen to Moderators',
    description:
      'Follow staff instructions. If you disagree with a decision, raise it calmly and privately with staff rather than arguing in public channels.',
  },
] as const;
