/** An alt account found while verifying a member, as the verification reports it. */
export interface DetectedAlt {
  /** the other account of the link */
  discordId: string;
  username: string;
  confidence: 'certain' | 'medium' | 'possible';
  detectionMethod: string;
  /** whether the member being verified is the alt (newer) side */
  memberIsAlt: boolean;
}
